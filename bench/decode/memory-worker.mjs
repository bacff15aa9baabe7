// Memory of ONE variant over ONE stream, in a fresh process started with
// --expose-gc, so nothing else (other variants, warm-ups) shares its heap.
// Reported, relative to a baseline taken after imports and a full GC:
//   peakRssDelta     max RSS sampled every SAMPLE_MS (and the kernel's maxRSS
//                    from process.resourceUsage(), whichever is higher);
//   peakHeapDelta    max heapUsed sampled (includes garbage not yet collected);
//   retainedHeapDelta max heapUsed right after a forced GC, taken at each
//                    tenth of the stream while it is being consumed: what the
//                    consumer actually keeps alive. Flat = it does not grow
//                    with the stream.
//   node --expose-gc bench/decode/memory-worker.mjs --protocol chat --variant ours \
//     --origin http://127.0.0.1:PORT --records 200000
import { parseArgs } from 'node:util';
import { createVariants } from './variants.mjs';

const SAMPLE_MS = 5;

const { values } = parseArgs({
  options: { protocol: { type: 'string' }, variant: { type: 'string' }, origin: { type: 'string' }, records: { type: 'string' } },
});
if (!values.protocol || !values.variant || !values.origin || !values.records) {
  throw new Error('usage: --protocol <p> --variant <v> --origin <url> --records <n>');
}
if (typeof globalThis.gc !== 'function') throw new Error('bench: run the memory worker with node --expose-gc');
const gc = globalThis.gc;
const records = Number(values.records);

/**
 * Every consumer reads the body through fetch, so the body bytes that went by
 * are the one progress measure all variants share: a wrapped global fetch
 * takes a GC checkpoint at each tenth of the body (the server announces the
 * size in `x-bench-body-bytes`). Installed before the SDK clients are built:
 * they capture globalThis.fetch when constructed.
 */
let retainedHeap = 0;
const realFetch = globalThis.fetch;
globalThis.fetch = async (...args) => {
  const response = await realFetch(...args);
  const total = Number(response.headers.get('x-bench-body-bytes'));
  if (response.body === null || !(total > 0)) throw new Error('bench: the server did not announce the body size');
  let bytesRead = 0;
  let nextCheckpoint = total / 10;
  const counted = response.body.pipeThrough(
    new TransformStream({
      transform(chunk, controller) {
        bytesRead += chunk.byteLength;
        if (bytesRead >= nextCheckpoint && bytesRead < total) {
          gc();
          retainedHeap = Math.max(retainedHeap, process.memoryUsage().heapUsed);
          nextCheckpoint += total / 10;
        }
        controller.enqueue(chunk);
      },
    }),
  );
  return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
};

const variants = await createVariants(values.protocol, values.origin, records);
const run = variants[values.variant];
if (!run) throw new Error(`bench: unknown variant ${values.variant}`);

gc();
const baseline = process.memoryUsage();
let peakRss = baseline.rss;
let peakHeap = baseline.heapUsed;
retainedHeap = baseline.heapUsed;
const sampler = setInterval(() => {
  const { rss, heapUsed } = process.memoryUsage();
  if (rss > peakRss) peakRss = rss;
  if (heapUsed > peakHeap) peakHeap = heapUsed;
}, SAMPLE_MS);

const items = await run();
clearInterval(sampler);
const maxRss = process.resourceUsage().maxRSS * 1024;
const toMiB = (bytes) => Math.round((bytes / 1048576) * 10) / 10;
process.stdout.write(
  `${JSON.stringify({
    protocol: values.protocol,
    variant: values.variant,
    records,
    items,
    peakRssDeltaMiB: toMiB(Math.max(peakRss, maxRss) - baseline.rss),
    peakHeapDeltaMiB: toMiB(peakHeap - baseline.heapUsed),
    retainedHeapDeltaMiB: toMiB(retainedHeap - baseline.heapUsed),
  })}\n`,
);
process.exit(0);
