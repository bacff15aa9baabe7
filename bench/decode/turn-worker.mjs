// One (protocol, size) cell of bench/decode/turn-run.mjs, in a fresh process:
// the floor, floor+json, the official SDK, and for each bundled source tree
// its decoder alone (`ours@…`) and runTurn end to end (`turn@…`), against the
// same loopback stream. Variants are interleaved (order rotated per round);
// with --warm-each every timed run follows an untimed run of the same variant
// (decision 0208). Prints one JSON line of per-variant timings.
//
//   node --expose-gc bench/decode/turn-worker.mjs --protocol chat --origin http://127.0.0.1:PORT \
//     --records 20000 --libs '{"current":"/tmp/…/turn-lib.js"}' [--reps 5] [--warmup 1] [--warm-each] [--no-sdk]
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { createVariants, makeRequestBody } from './variants.mjs';

const { values } = parseArgs({
  options: {
    protocol: { type: 'string' },
    origin: { type: 'string' },
    records: { type: 'string' },
    libs: { type: 'string' },
    reps: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
    'warm-each': { type: 'boolean', default: false },
    'no-sdk': { type: 'boolean', default: false },
    // Skips the full GC before each timed run: steady state, as a process that serves many turns
    // between major GCs (the default, a GC before each run, puts every variant just after one).
    'no-gc': { type: 'boolean', default: false },
  },
});
const { protocol, origin } = values;
const records = Number(values.records);
const libPaths = JSON.parse(values.libs);

/** runTurn over the bench stream with real fetch; checks it ended ok with the protocol's finish. */
function makeTurnVariant(lib) {
  const adapter = lib.adapters[protocol];
  const prefix = `${origin}/n/${records}`;
  // Anthropic's base URL has no /v1: the adapter appends /v1/messages, like the SDK.
  const target = { baseUrl: protocol === 'messages' ? prefix : `${prefix}/v1`, apiKey: 'bench-not-a-key' };
  const request = makeRequestBody(protocol);
  return async () => {
    const run = lib.runTurn({ adapter, request, target, fetch: (url, init) => fetch(url, init), retry: { maxRetries: 0 } });
    let count = 0;
    for await (const _event of run) count += 1;
    const result = await run.result;
    if (result.outcome !== 'ok' || result.finishReason === undefined) throw new Error(`bench: runTurn ${protocol} ended ${result.outcome} (${result.error?.code})`);
    if (count < records * 0.8) throw new Error(`bench: runTurn ${protocol} produced ${count} events, expected ≥ ${records * 0.8}`);
    return count;
  };
}

const variants = {};
for (const [name, path] of Object.entries(libPaths)) {
  const lib = await import(pathToFileURL(path).href);
  const decoders = await createVariants(protocol, origin, records, { adapters: lib.adapters });
  if (name === 'current') {
    variants.floor = decoders.floor;
    variants['floor+json'] = decoders['floor+json'];
    if (!values['no-sdk']) variants.sdk = decoders.sdk;
  }
  variants[`ours@${name}`] = decoders.ours;
  variants[`turn@${name}`] = makeTurnVariant(lib);
}
const names = Object.keys(variants);

async function timeOnce(name) {
  if (!values['no-gc']) globalThis.gc?.();
  const start = performance.now();
  await variants[name]();
  return performance.now() - start;
}

for (let round = 0; round < Number(values.warmup); round += 1) for (const name of names) await timeOnce(name);
const timings = Object.fromEntries(names.map((name) => [name, []]));
for (let round = 0; round < Number(values.reps); round += 1) {
  for (let index = 0; index < names.length; index += 1) {
    const name = names[(index + round) % names.length];
    if (values['warm-each']) await timeOnce(name);
    timings[name].push(await timeOnce(name));
  }
}
process.stdout.write(`${JSON.stringify({ protocol, records, timings })}\n`);
// Keep-alive sockets to the server would hold the process open for their timeout.
process.exit(0);
