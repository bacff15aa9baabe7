// The markdown of bench/decode/turn-run.mjs. Every ratio is a throughput
// ratio (b's time over a's) taken per process from that process's medians,
// then summarised as the median over processes with its range.
import { median } from './report.mjs';

/** Median and range over processes of `pick(process medians)`; undefined when a variant was not run. */
export function summarise(perProcess, pick) {
  const values = perProcess.map(pick);
  if (values.some((value) => !Number.isFinite(value))) return undefined;
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}

export const show = (stat, digits = 2) => (stat === undefined ? '—' : `${stat.median.toFixed(digits)} (${stat.min.toFixed(digits)}–${stat.max.toFixed(digits)})`);
export const times = (a, b) => (row) => row[b] / row[a];

/**
 * A worker process's last stdout line (`{ timings, cpu }`, per variant) as
 * each variant's median wall time, and its median CPU time under `cpu:<variant>`.
 */
export function processMedians(stdout) {
  const { timings, cpu = {} } = JSON.parse(stdout.trim().split('\n').at(-1));
  const wall = Object.entries(timings).map(([name, list]) => [name, median(list)]);
  const busy = Object.entries(cpu).map(([name, list]) => [`cpu:${name}`, median(list)]);
  return Object.fromEntries([...wall, ...busy]);
}

export function formatTurnTable(meta, cells) {
  const base = meta.ref;
  const lines = [
    `Run ${meta.date}, Node ${meta.node}, load at start ${meta.load}. Command: \`${meta.command}\`.`,
    `${meta.processes} fresh processes per cell × ${meta.reps} interleaved rounds after ${meta.warmup} warm-up; per process the median of its rounds, then the median (range) over processes. "a × b" = a's throughput over b's; "CPU": the same from the client process's CPU time per run (user + system), which the loopback server's pace does not move.`,
    '',
    '| protocol | chunks | turn ms | ours ms | turn × ours | turn × ours, CPU | turn × sdk | ours × floor | turn × floor | ours × floor+json' + (base ? ` | turn × turn@${base} | ours × ours@${base} | turn@${base} × ours@${base}` : '') + ' |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---:' + (base ? ' | ---: | ---: | ---:' : '') + ' |',
  ];
  for (const { protocol, records, perProcess } of cells) {
    const cols = [
      show(summarise(perProcess, (row) => row['turn@current']), 1),
      show(summarise(perProcess, (row) => row['ours@current']), 1),
      show(summarise(perProcess, times('turn@current', 'ours@current'))),
      show(summarise(perProcess, times('cpu:turn@current', 'cpu:ours@current'))),
      show(summarise(perProcess, times('turn@current', 'sdk'))),
      show(summarise(perProcess, times('ours@current', 'floor'))),
      show(summarise(perProcess, times('turn@current', 'floor'))),
      show(summarise(perProcess, times('ours@current', 'floor+json'))),
    ];
    if (base) {
      cols.push(
        show(summarise(perProcess, times('turn@current', `turn@${base}`))),
        show(summarise(perProcess, times('ours@current', `ours@${base}`))),
        show(summarise(perProcess, times(`turn@${base}`, `ours@${base}`))),
      );
    }
    lines.push(`| ${protocol} | ${records} | ${cols.join(' | ')} |`);
  }
  return lines.join('\n');
}
