// What bench/decode/turn-worker.mjs (over a socket), turn-memory-worker.mjs and
// turn-phases.mjs (from memory) share: runTurn as a timed variant, the
// interleaved rounds, a stream served from memory.
import { performance } from 'node:perf_hooks';

/**
 * runTurn over whatever `fetch` returns, as one timed variant; throws unless
 * the turn ended ok with a finish reason and gave ≥ 80 % of `records` events.
 */
export function makeTurnVariant(lib, protocol, { request, target, fetch, records }) {
  const adapter = lib.adapters[protocol];
  return async () => {
    const run = lib.runTurn({ adapter, request, target, fetch, retry: { maxRetries: 0 } });
    let count = 0;
    for await (const _event of run) count += 1;
    const result = await run.result;
    if (result.outcome !== 'ok' || result.finishReason === undefined) throw new Error(`bench: runTurn ${protocol} ended ${result.outcome} (${result.error?.code})`);
    if (count < records * 0.8) throw new Error(`bench: runTurn ${protocol} produced ${count} events, expected ≥ ${records * 0.8}`);
    return count;
  };
}

/**
 * `{ [variant]: ms[] }`: `warmup` untimed rounds, then `reps` rounds with the
 * order rotated each round (no variant always runs right after another).
 * `gc`: a full GC before each timed run. `warmEach`: an untimed run of the
 * same variant before each timed one (decision 0208).
 */
export async function timeInterleaved(variants, { warmup, reps, gc, warmEach = false }) {
  const names = Object.keys(variants);
  const timeOnce = async (name) => {
    if (gc) globalThis.gc?.();
    const start = performance.now();
    await variants[name]();
    return performance.now() - start;
  };
  for (let round = 0; round < warmup; round += 1) for (const name of names) await timeOnce(name);
  const timings = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < reps; round += 1) {
    for (let index = 0; index < names.length; index += 1) {
      const name = names[(index + round) % names.length];
      if (warmEach) await timeOnce(name);
      timings[name].push(await timeOnce(name));
    }
  }
  return timings;
}

/** The upstream runTurn is given when its bodies come from memory: never dialled (the fetch is `memoryResponses`). */
export const MEMORY_TARGET = { baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'bench-not-a-key' };

/**
 * `() => Response` over `wireBytes` held in memory: each call a fresh body
 * that gives `readBytes` per read, as a socket would; `onRead` runs per read.
 */
export function memoryResponses(wireBytes, readBytes, onRead = () => undefined) {
  return () => {
    let offset = 0;
    const body = new ReadableStream(
      {
        pull(controller) {
          if (offset >= wireBytes.length) return controller.close();
          onRead();
          controller.enqueue(wireBytes.subarray(offset, offset + readBytes));
          offset += readBytes;
        },
      },
      { highWaterMark: 0 },
    );
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  };
}
