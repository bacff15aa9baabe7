// One process of bench/decode/turn-memory-run.mjs: runTurn and its decoder
// over the same rendered stream held in memory (no socket, no server),
// interleaved, so what is left between them is runTurn's own per-event cost.
// Prints one JSON line: { timings: { [variant]: ms[] } }.
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { makeTurnVariant, memoryResponses, timeInterleaved, MEMORY_TARGET } from './turn-timing.mjs';
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
    // Short turns of every variant before timing: runTurn's once-per-turn code as warm as in a long-running host.
    'warm-turns': { type: 'string', default: '0' },
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

const makeResponse = memoryResponses(wireBytes, readBytes);

function makeVariants(name, lib, respond = makeResponse, expected = records) {
  const adapter = lib.adapters[protocol];
  const request = makeRequestBody(protocol);
  return {
    [`ours@${name}`]: async () => {
      let count = 0;
      for await (const _event of adapter.decodeStream(respond().body)) count += 1;
      if (count < expected * 0.8) throw new Error(`bench: decoder produced ${count} events`);
    },
    [`turn@${name}`]: makeTurnVariant(lib, protocol, { request, target: MEMORY_TARGET, fetch: async () => respond(), records: expected }),
  };
}

const WARM_RECORDS = 40;
const warmTurns = Number(values['warm-turns']);
const shortResponse = warmTurns > 0 ? memoryResponses(new Uint8Array(Buffer.concat((await renderWireStream(protocol, WARM_RECORDS)).chunks)), readBytes) : makeResponse;
const variants = {};
const warmVariants = [];
for (const [name, path] of Object.entries(JSON.parse(values.libs))) {
  const lib = await import(pathToFileURL(path).href);
  Object.assign(variants, makeVariants(name, lib));
  if (warmTurns > 0) warmVariants.push(...Object.values(makeVariants(name, lib, shortResponse, WARM_RECORDS)));
}
for (let turn = 0; turn < warmTurns; turn += 1) for (const run of warmVariants) await run();
const { timings } = await timeInterleaved(variants, { warmup: Number(values.warmup), reps: Number(values.reps), gc: values.gc });
process.stdout.write(`${JSON.stringify({ timings })}\n`);
