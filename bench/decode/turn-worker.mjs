// One (protocol, size) cell of bench/decode/turn-run.mjs, in a fresh process:
// the floor, floor+json, the official SDK, and for each bundled source tree
// its decoder alone (`ours@…`) and runTurn end to end (`turn@…`), against the
// same loopback stream. Variants are interleaved (a shuffled order per round);
// with --warm-each every timed run follows an untimed run of the same variant
// (decision 0320). Prints one JSON line of per-variant timings and CPU times.
//
//   node --expose-gc bench/decode/turn-worker.mjs --protocol chat --origin http://127.0.0.1:PORT \
//     --records 20000 --libs '{"current":"/tmp/…/turn-lib.js"}' [--reps 5] [--warmup 1] [--warm-each] [--no-sdk]
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { makeTurnVariant, timeInterleaved } from './turn-timing.mjs';
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

/** runTurn over the bench stream with real fetch. */
function makeLibTurnVariant(lib) {
  const prefix = `${origin}/n/${records}`;
  // Anthropic's base URL has no /v1: the adapter appends /v1/messages, like the SDK.
  const target = { baseUrl: protocol === 'messages' ? prefix : `${prefix}/v1`, apiKey: 'bench-not-a-key' };
  return makeTurnVariant(lib, protocol, { request: makeRequestBody(protocol), target, fetch: (url, init) => fetch(url, init), records });
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
  variants[`turn@${name}`] = makeLibTurnVariant(lib);
}
// A full GC before each timed run unless --no-gc (see the option above).
const { timings, cpu } = await timeInterleaved(variants, { warmup: Number(values.warmup), reps: Number(values.reps), gc: !values['no-gc'], warmEach: values['warm-each'] });
process.stdout.write(`${JSON.stringify({ protocol, records, timings, cpu })}\n`);
// Keep-alive sockets to the server would hold the process open for their timeout.
process.exit(0);
