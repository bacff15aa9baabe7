// bench/decode/turn-phases.mjs: where runTurn's time goes beside its own
// decoder, from memory as in turn-memory-run.mjs. Every event's
// arrival is timestamped, then each run is split into:
// - first event: from the call (runTurn, or the decoder over a fresh body) to the host's first event;
// - reads: the largest gaps between events, one per wire read the body served (each read is
//   decoded into a batch there, so this is parsing plus whatever GC landed in it);
// - hand-over: every other gap, per event (taking one decoded event to the host);
// - end: from the last event to the end of the run (the loop's exit; for runTurn, its result settled).
// The timestamps cost the same on both sides; the split is what matters, not the totals.
//
//   node bench/decode/turn-phases.mjs [--records 20000] [--rounds 40] [--protocols chat,messages,responses]
//     [--node-args=--no-flush-bytecode]   (V8 flags for the workers, to test a cause)
//
// One fresh process per protocol; the working tree is bundled as turn-run.mjs does.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { median } from './report.mjs';
import { REPO_ROOT } from './resolve-deps.mjs';
import { bundleTurnLib } from './turn-libs.mjs';
import { memoryResponses, MEMORY_TARGET } from './turn-timing.mjs';
import { makeRequestBody } from './variants.mjs';
import { renderWireStream } from './wire-streams.mjs';

const READ_BYTES = 16_384;
const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '40' },
    protocols: { type: 'string', default: 'chat,messages,responses' },
    'node-args': { type: 'string', default: '' },
    // Internal: run one protocol against a bundle in this process and print JSON.
    worker: { type: 'string' },
    lib: { type: 'string' },
  },
});
const records = Number(values.records);

/** One run's split, from its events' arrival times (ms) and the number of wire reads it made. */
function splitRun(startedAt, arrivals, count, reads, endedAt) {
  const gaps = [];
  for (let index = 1; index < count; index += 1) gaps.push(arrivals[index] - arrivals[index - 1]);
  gaps.sort((a, b) => b - a);
  // The first read is in the first event's time; every later read is one of the largest gaps.
  const readGaps = gaps.slice(0, Math.max(0, reads - 1));
  const readMs = readGaps.reduce((sum, gap) => sum + gap, 0);
  const handOverMs = arrivals[count - 1] - arrivals[0] - readMs;
  return {
    firstUs: (arrivals[0] - startedAt) * 1000,
    readMs,
    handOverNs: (handOverMs * 1e6) / Math.max(1, count - 1 - readGaps.length),
    endUs: (endedAt - arrivals[count - 1]) * 1000,
  };
}

async function runWorker(protocol, libPath) {
  const lib = await import(pathToFileURL(libPath).href);
  const plan = await renderWireStream(protocol, records);
  let reads = 0;
  const makeResponse = memoryResponses(new Uint8Array(Buffer.concat(plan.chunks)), READ_BYTES, () => (reads += 1));
  const adapter = lib.adapters[protocol];
  const request = makeRequestBody(protocol);
  const arrivals = new Float64Array(records * 2 + 16);
  // `settle`: what the run awaits after its last event (runTurn's result), timed as its end.
  const timeEvents = async (events, settle = async () => undefined) => {
    reads = 0;
    const startedAt = performance.now();
    let count = 0;
    for await (const _event of events()) arrivals[count++] = performance.now();
    await settle();
    const endedAt = performance.now();
    if (count < records * 0.8) throw new Error(`bench: ${protocol} gave ${count} events`);
    return splitRun(startedAt, arrivals, count, reads, endedAt);
  };
  const variants = {
    ours: () => timeEvents(() => adapter.decodeStream(makeResponse().body)),
    turn: async () => {
      const run = lib.runTurn({ adapter, request, target: MEMORY_TARGET, fetch: async () => makeResponse(), retry: { maxRetries: 0 } });
      let result;
      const split = await timeEvents(
        () => run,
        async () => {
          result = await run.result;
        },
      );
      // As turn-timing.mjs's makeTurnVariant: a turn that did not end ok would time something else.
      if (result.outcome !== 'ok') throw new Error(`bench: runTurn ${protocol} ended ${result.outcome} (${result.error?.code})`);
      return split;
    },
  };
  const rounds = Number(values.rounds);
  const results = { ours: [], turn: [] };
  // The first quarter warms up; the order alternates so neither always runs first.
  for (let round = 0; round < rounds; round += 1) {
    for (const name of round % 2 === 0 ? ['ours', 'turn'] : ['turn', 'ours']) {
      const split = await variants[name]();
      if (round >= rounds / 4) results[name].push(split);
    }
  }
  const pick = (list, key) => median(list.map((split) => split[key]));
  const summary = Object.fromEntries(Object.entries(results).map(([name, list]) => [name, { firstUs: pick(list, 'firstUs'), readMs: pick(list, 'readMs'), handOverNs: pick(list, 'handOverNs'), endUs: pick(list, 'endUs') }]));
  process.stdout.write(`${JSON.stringify(summary)}\n`);
}

async function runAll() {
  const workDir = await mkdtemp(join(tmpdir(), 'tg-turn-phases-'));
  const rows = [];
  try {
    const lib = await bundleTurnLib(REPO_ROOT, join(workDir, 'current'));
    for (const protocol of values.protocols.split(',')) {
      const args = [...values['node-args'].split(' ').filter(Boolean), fileURLToPath(import.meta.url), '--worker', protocol, '--lib', lib, '--records', values.records, '--rounds', values.rounds];
      const { stdout } = await promisify(execFile)(process.execPath, args, { cwd: REPO_ROOT, timeout: 300_000 });
      const { ours, turn } = JSON.parse(stdout.trim().split('\n').at(-1));
      const cell = (key, digits) => `${ours[key].toFixed(digits)} / ${turn[key].toFixed(digits)} (+${(turn[key] - ours[key]).toFixed(digits)})`;
      rows.push(`| ${protocol} | ${cell('firstUs', 0)} | ${cell('readMs', 2)} | ${cell('handOverNs', 0)} | ${cell('endUs', 0)} |`);
    }
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
  process.stdout.write(
    [
      `Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, Node ${process.version}. Command: \`node bench/decode/turn-phases.mjs ${process.argv.slice(2).join(' ')}\`.`,
      `${records} chunks from memory in ${READ_BYTES}-byte reads, ${values.rounds} alternating rounds per protocol (the first quarter warm-up), medians. Each cell: decoder alone / runTurn (+ runTurn's extra).`,
      '',
      '| protocol | first event, µs | reads (decode + GC), ms per run | hand-over, ns per event | end, µs |',
      '| --- | ---: | ---: | ---: | ---: |',
      ...rows,
    ].join('\n') + '\n',
  );
}

if (values.worker !== undefined) await runWorker(values.worker, values.lib);
else await runAll();
