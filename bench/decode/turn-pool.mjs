// Pools the processes of several bench/decode/turn-run.mjs runs (their raw
// JSON files, printed as "raw: …") into one table: per cell, every process of
// every run, then the median (range) over all of them. On a 2-core box the
// median of 5 processes still moves by ±0.07 from run to run; pooling runs of
// the same trees narrows that. Runs must share sizes, protocols and baseline.
//   node bench/decode/turn-pool.mjs /tmp/turnguard-bench-turn-A.json /tmp/turnguard-bench-turn-B.json
import { readFileSync } from 'node:fs';
import { formatTurnTable } from './turn-report.mjs';

const files = process.argv.slice(2);
if (files.length === 0) throw new Error('usage: turn-pool.mjs <raw.json> [raw.json …]');
const runs = files.map((file) => JSON.parse(readFileSync(file, 'utf8')));
const [first] = runs;
if (runs.some((run) => run.meta.ref !== first.meta.ref)) throw new Error('turn-pool: the runs compare against different baselines');

const cells = first.cells.map(({ protocol, records }) => ({
  protocol,
  records,
  perProcess: runs.flatMap((run, index) => {
    const cell = run.cells.find((each) => each.protocol === protocol && each.records === records);
    if (cell === undefined) throw new Error(`turn-pool: ${files[index]} has no ${protocol} ${records} cell`);
    return cell.perProcess;
  }),
}));
const meta = {
  ...first.meta,
  date: runs.map((run) => run.meta.date).join(' + '),
  load: runs.map((run) => run.meta.load).join('; '),
  command: `${first.meta.command} (${runs.length} runs pooled: node bench/decode/turn-pool.mjs)`,
  processes: cells[0]?.perProcess.length ?? 0,
};
process.stdout.write(`${formatTurnTable(meta, cells)}\n`);
