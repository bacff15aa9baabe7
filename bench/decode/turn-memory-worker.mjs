// One process of bench/decode/turn-memory-run.mjs: runTurn and its decoder
// over the same rendered stream held in memory (no socket, no server),
// interleaved, so what is left between them is runTurn's own per-event cost.
// Prints one JSON line: { timings: { [variant]: ms[] } }.
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { makeRequestBody } from './variants.mjs';
import { renderWireStream } from './wire-streams.mjs';

const { values } = parseArgs({
  options: {
    protocol: { type: 'string' },
    records: { type: 'string' },
    libs: { type: 'string' },
    reps: { type: 'string', default: '21' },
    warmup: { type: 'string', default: '3' },
    'read-bytes': { type: 'string', default: '16384' },
    // A full GC before each timed run, as turn-worker.mjs does by default; off here by default:
    // the GC's time dilutes the per-event difference this bench exists to show.
    gc: { type: 'boolean', default: false },
  },
});
const { protocol } = values;
const records = Number(values.records);
const readBytes = Number(values['read-bytes']);
const plan = await renderWireStream(protocol, records);
const wireBytes = new Uint8Array(Buffer.concat(plan.chunks));

/** The rendered stream as a Response whose body yields `readBytes` per read, as a socket would. */
function makeResponse() {
  let offset = 0;
  const body = new ReadableStream(
    {
      pull(controller) {
        if (offset >= wireBytes.length) return controller.close();
        controller.enqueue(wireBytes.subarray(offset, offset + readBytes));
        offset += readBytes;
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

function makeVariants(name, lib) {
  const adapter = lib.adapters[protocol];
  const request = makeRequestBody(protocol);
  const target = { baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'bench-not-a-key' };
  return {
    [`ours@${name}`]: async () => {
      let count = 0;
      for await (const _event of adapter.decodeStream(makeResponse().body)) count += 1;
      if (count < records * 0.8) throw new Error(`bench: decoder produced ${count} events`);
    },
    [`turn@${name}`]: async () => {
      const run = lib.runTurn({ adapter, request, target, fetch: async () => makeResponse(), retry: { maxRetries: 0 } });
      let count = 0;
      for await (const _event of run) count += 1;
      const result = await run.result;
      if (result.outcome !== 'ok' || result.finishReason === undefined) throw new Error(`bench: runTurn ended ${result.outcome} (${result.error?.code})`);
      if (count < records * 0.8) throw new Error(`bench: runTurn produced ${count} events`);
    },
  };
}

const variants = {};
for (const [name, path] of Object.entries(JSON.parse(values.libs))) Object.assign(variants, makeVariants(name, await import(pathToFileURL(path).href)));
const names = Object.keys(variants);
const timings = Object.fromEntries(names.map((name) => [name, []]));
for (let round = 0; round < Number(values.warmup); round += 1) for (const name of names) await variants[name]();
for (let round = 0; round < Number(values.reps); round += 1) {
  // Rotated so no variant always runs right after another.
  for (let index = 0; index < names.length; index += 1) {
    const name = names[(index + round) % names.length];
    if (values.gc) globalThis.gc();
    const startedAt = performance.now();
    await variants[name]();
    timings[name].push(performance.now() - startedAt);
  }
}
process.stdout.write(`${JSON.stringify({ timings })}\n`);
