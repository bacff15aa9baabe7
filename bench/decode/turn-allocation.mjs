// bench/decode/turn-allocation.mjs: bytes allocated per event by a decoder
// alone and by runTurn over it, from memory. Each run starts after a full GC
// in a process whose young generation is larger than one run allocates
// (`--max-semi-space-size`), so no GC runs inside it and the growth of the
// used heap is what the run allocated (what it keeps included). "turn −
// ours" is runTurn's own allocation per event. A measurement, not a test:
// the figures follow the Node version.
//
//   node bench/decode/turn-allocation.mjs [--records 20000] [--runs 9] [--baseline-ref 420f312]
//     [--protocols chat,messages,responses]
//
// Needs packages/testkit/dist (`node bench/decode/run.mjs` builds it).
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { getHeapStatistics } from 'node:v8';
import { REPO_ROOT } from './resolve-deps.mjs';
import { bundleTurnLibs } from './turn-libs.mjs';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '20000' },
    runs: { type: 'string', default: '9' },
    'baseline-ref': { type: 'string', default: '' },
    protocols: { type: 'string', default: 'chat,messages,responses' },
    worker: { type: 'string', default: '' },
    protocol: { type: 'string', default: '' },
    libs: { type: 'string', default: '' },
  },
});

if (values.worker === '1') await runWorker();
else await runMain();

async function runMain() {
  const ref = values['baseline-ref'] === '' ? undefined : values['baseline-ref'];
  const workDir = await mkdtemp(join(tmpdir(), 'tg-turn-allocation-'));
  const execNode = promisify(execFile);
  const rows = [];
  try {
    const libs = await bundleTurnLibs(REPO_ROOT, workDir, ref);
    for (const protocol of values.protocols.split(',')) {
      const args = ['--expose-gc', '--max-semi-space-size=256', fileURLToPath(import.meta.url), '--worker', '1', '--protocol', protocol, '--records', values.records, '--runs', values.runs, '--libs', JSON.stringify(libs)];
      const { stdout } = await execNode(process.execPath, args, { cwd: REPO_ROOT, timeout: 300_000 });
      const perEvent = JSON.parse(stdout);
      for (const [tree, { ours, turn }] of Object.entries(perEvent)) rows.push(`| ${protocol} | ${tree} | ${ours.toFixed(0)} | ${turn.toFixed(0)} | ${(turn - ours).toFixed(0)} |`);
    }
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
  process.stdout.write(
    [
      `Node ${process.version}. Command: \`node bench/decode/turn-allocation.mjs ${process.argv.slice(2).join(' ')}\`. ${values.records} chunks from memory; bytes per event, median of ${values.runs} runs.`,
      '',
      '| protocol | tree | decoder alone | runTurn | runTurn − decoder |',
      '| --- | --- | ---: | ---: | ---: |',
      ...rows,
    ].join('\n') + '\n',
  );
}

async function runWorker() {
  const { memoryResponses, MEMORY_TARGET } = await import('./turn-timing.mjs');
  const { makeRequestBody } = await import('./variants.mjs');
  const { renderWireStream } = await import('./wire-streams.mjs');
  const protocol = values.protocol;
  const records = Number(values.records);
  const plan = await renderWireStream(protocol, records);
  const wireBytes = new Uint8Array(Buffer.concat(plan.chunks));
  const makeResponse = memoryResponses(wireBytes, 16_384);
  const request = makeRequestBody(protocol);
  const result = {};
  for (const [tree, path] of Object.entries(JSON.parse(values.libs))) {
    const lib = await import(pathToFileURL(path).href);
    const adapter = lib.adapters[protocol];
    const variants = {
      ours: async () => {
        let count = 0;
        for await (const _event of adapter.decodeStream(makeResponse().body)) count += 1;
        return count;
      },
      turn: async () => {
        const run = lib.runTurn({ adapter, request, target: MEMORY_TARGET, fetch: async () => makeResponse(), retry: { maxRetries: 0 } });
        let count = 0;
        for await (const _event of run) count += 1;
        await run.result;
        return count;
      },
    };
    result[tree] = {};
    for (const [name, variant] of Object.entries(variants)) {
      for (let warm = 0; warm < 5; warm += 1) await variant();
      const perEvent = [];
      for (let run = 0; run < Number(values.runs); run += 1) {
        globalThis.gc();
        const before = getHeapStatistics().used_heap_size;
        const count = await variant();
        perEvent.push((getHeapStatistics().used_heap_size - before) / count);
      }
      perEvent.sort((a, b) => a - b);
      result[tree][name] = perEvent[perEvent.length >> 1];
    }
  }
  process.stdout.write(JSON.stringify(result));
}
