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
 * The variants' order in `round`: a permutation from a seeded generator
 * (mulberry32), the same in every process. Rotating one order kept each
 * variant's neighbours fixed, and the neighbourhood, not the code, moved the
 * result: with two copies of the same tree, the runTurn placed after
 * floor+json and its decoder read 0.87 of that decoder's CPU against 1.05
 * for the other copy, and the gap followed the slot when the copies swapped
 * (decision 0320).
 */
export function roundOrder(names, round) {
  let seed = Math.imul(round + 1, 0x9e3779b1);
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let mixed = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
  const order = [...names];
  for (let index = order.length - 1; index > 0; index -= 1) {
    const other = Math.floor(random() * (index + 1));
    [order[index], order[other]] = [order[other], order[index]];
  }
  return order;
}

/**
 * `{ timings, cpu }`: per variant, each timed run's wall time (ms) and this
 * process's CPU time in it (µs, user + system, every thread). Over a socket
 * on a small machine the wall time follows the loopback server's pace as
 * much as the client's work; the CPU time is the client's work alone.
 * `warmup` untimed rounds, then `reps` rounds, each in its own order
 * (`roundOrder`). `gc`: a full GC before each timed run. `warmEach`: an
 * untimed run of the same variant before each timed one (decision 0320).
 */
export async function timeInterleaved(variants, { warmup, reps, gc, warmEach = false }) {
  const names = Object.keys(variants);
  const timeOnce = async (name) => {
    if (gc) globalThis.gc?.();
    const cpuBefore = process.cpuUsage();
    const start = performance.now();
    await variants[name]();
    const ms = performance.now() - start;
    const { user, system } = process.cpuUsage(cpuBefore);
    return { ms, cpuUs: user + system };
  };
  for (let round = 0; round < warmup; round += 1) for (const name of names) await timeOnce(name);
  const timings = Object.fromEntries(names.map((name) => [name, []]));
  const cpu = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < reps; round += 1) {
    for (const name of roundOrder(names, round)) {
      if (warmEach) await timeOnce(name);
      const { ms, cpuUs } = await timeOnce(name);
      timings[name].push(ms);
      cpu[name].push(cpuUs);
    }
  }
  return { timings, cpu };
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
