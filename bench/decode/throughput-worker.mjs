// One protocol's throughput runs, in a process of its own (so one protocol's
// JIT state does not colour another's). Variants are interleaved: every round
// runs each variant once, in an order rotated per round, so drift on the
// shared machine hits all of them alike. Each timed run follows an untimed run
// of the same variant (decision 0320): the forced `gc()` before every run would
// otherwise let V8 expire the maps a variant's optimised code depends on
// (`--retain-maps-for-n-gc`, 2 by default) while the other variants run, and
// each timed run would start by re-optimising. Prints one JSON line.
//
//   node --expose-gc bench/decode/throughput-worker.mjs --protocol chat --origin http://127.0.0.1:PORT \
//     --records 20000 [--runs 7] [--warmup 2] [--only ours]
// With `--only ours` and `node --cpu-prof` this is the profiling entry point.
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { VARIANT_NAMES, createVariants } from './variants.mjs';

const { values } = parseArgs({
  options: {
    protocol: { type: 'string' },
    origin: { type: 'string' },
    records: { type: 'string', default: '20000' },
    runs: { type: 'string', default: '7' },
    warmup: { type: 'string', default: '2' },
    only: { type: 'string' },
    // `--cold` times each run right after the other variants' runs (before decision 0320).
    cold: { type: 'boolean', default: false },
  },
});
if (!values.protocol || !values.origin) throw new Error('usage: --protocol <chat|messages|responses> --origin <http://127.0.0.1:port>');

const records = Number(values.records);
const names = values.only ? values.only.split(',') : VARIANT_NAMES;
const variants = await createVariants(values.protocol, values.origin, records);
for (const name of names) if (!(name in variants)) throw new Error(`bench: unknown variant ${name}`);

/** Same starting heap for every run: a collection left over from the previous variant is not charged to the next. */
const collectGarbage = () => globalThis.gc?.();

async function timeOnce(name) {
  collectGarbage();
  const start = performance.now();
  const items = await variants[name]();
  return { ms: performance.now() - start, items };
}

for (let round = 0; round < Number(values.warmup); round += 1) {
  for (const name of names) await timeOnce(name);
}

const runs = Number(values.runs);
const timings = Object.fromEntries(names.map((name) => [name, []]));
const items = {};
for (let round = 0; round < runs; round += 1) {
  const order = names.map((_, index) => names[(index + round) % names.length]);
  for (const name of order) {
    if (!values.cold) await timeOnce(name);
    const result = await timeOnce(name);
    timings[name].push(result.ms);
    items[name] = result.items;
  }
}

process.stdout.write(`${JSON.stringify({ protocol: values.protocol, records, runs, timings, items })}\n`);
// Keep-alive sockets to the server would hold the process open for their timeout.
process.exit(0);
