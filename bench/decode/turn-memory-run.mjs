// bench/decode/turn-memory-run.mjs: runTurn beside its own decoder with no
// socket. The same rendered stream is served from memory in
// 16 KiB reads, so the network, the wire server and their scheduling on a
// 2-core box are out of the ratio: what is left is runTurn's per-event cost.
// No full GC before each run by default (steady state; `--gc` to add one).
// `--warm-turns N`: each process first runs N short turns (40 records) of
// every variant, so runTurn's once-per-turn code (request, retry, head,
// segment set-up) is as warm as in a host that has run many turns; without
// it that code runs only a few dozen times per process and stays cold, which
// adds its cold cost to every timed turn (decision 0320).
//
//   node bench/decode/turn-memory-run.mjs [--records 20000] [--processes 3] [--reps 21]
//     [--baseline-ref main] [--protocols chat,messages,responses] [--gc] [--warm-turns 2000]
//     [--node-args=--retain-maps-for-n-gc=1000]   (V8 flags for the workers, to test a cause)
//
// Needs packages/testkit/dist (`node bench/decode/run.mjs` builds it).
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { REPO_ROOT } from './resolve-deps.mjs';
import { bundleTurnLibs } from './turn-libs.mjs';
import { processMedians, show, summarise, times } from './turn-report.mjs';

const WORKER = fileURLToPath(new URL('turn-memory-worker.mjs', import.meta.url));
const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '20000' },
    processes: { type: 'string', default: '3' },
    reps: { type: 'string', default: '21' },
    'baseline-ref': { type: 'string', default: '' },
    protocols: { type: 'string', default: 'chat,messages,responses' },
    gc: { type: 'boolean', default: false },
    'warm-turns': { type: 'string', default: '0' },
    'node-args': { type: 'string', default: '' },
  },
});
const ref = values['baseline-ref'] === '' ? undefined : values['baseline-ref'];
const load = loadavg().map((value) => value.toFixed(1)).join(' / ');
const workDir = await mkdtemp(join(tmpdir(), 'tg-turn-memory-'));
const execNode = promisify(execFile);

async function runProcess(protocol, libs) {
  const args = ['--expose-gc', ...values['node-args'].split(' ').filter(Boolean), WORKER, '--protocol', protocol, '--records', values.records, '--libs', JSON.stringify(libs), '--reps', values.reps, '--warm-turns', values['warm-turns']];
  if (values.gc) args.push('--gc');
  const { stdout } = await execNode(process.execPath, args, { cwd: REPO_ROOT, timeout: 300_000 });
  return processMedians(stdout);
}

const rows = [];
try {
  const libs = await bundleTurnLibs(REPO_ROOT, workDir, ref);
  for (const protocol of values.protocols.split(',')) {
    process.stderr.write(`bench: ${protocol}…\n`);
    const perProcess = [];
    for (let index = 0; index < Number(values.processes); index += 1) perProcess.push(await runProcess(protocol, libs));
    const perEventNs = (row) => ((row['turn@current'] - row['ours@current']) * 1e6) / Number(values.records);
    const cols = [
      show(summarise(perProcess, (row) => row['turn@current']), 2),
      show(summarise(perProcess, (row) => row['ours@current']), 2),
      show(summarise(perProcess, times('turn@current', 'ours@current'))),
      show(summarise(perProcess, perEventNs), 0),
    ];
    if (ref) cols.push(show(summarise(perProcess, times('turn@current', `turn@${ref}`))), show(summarise(perProcess, times(`turn@${ref}`, `ours@${ref}`))));
    rows.push(`| ${protocol} | ${cols.join(' | ')} |`);
  }
} finally {
  await rm(workDir, { recursive: true, force: true });
}
const head = `| protocol | turn ms | ours ms | turn × ours | turn − ours, ns per event${ref ? ` | turn × turn@${ref} | turn@${ref} × ours@${ref}` : ''} |`;
process.stdout.write(
  [
    `Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, Node ${process.version}, load at start ${load}. Command: \`node bench/decode/turn-memory-run.mjs ${process.argv.slice(2).join(' ')}\`.`,
    `${values.records} chunks from memory, ${values.processes} fresh processes × ${values.reps} interleaved rounds; per process the median, then the median (range) over processes.`,
    '',
    head,
    `| --- | ${head.split('|').slice(2, -1).map(() => '---:').join(' | ')} |`,
    ...rows,
  ].join('\n') + '\n',
);
