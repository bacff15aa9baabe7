// process.memoryUsage() every 10 ms in the process under test, answered over
// IPC: {cmd:'reset'} starts a window, {cmd:'read'} returns the window's
// median and max RSS, heap used and heap committed (heapTotal), in bytes,
// and its sample count. With
// --expose-gc, {cmd:'gc'} runs a full GC and answers the heap still live
// then (what the open streams really hold, without the garbage between GCs);
// {cmd:'snapshot', file} writes a heap snapshot (heap-census.mjs); {cmd:'spaces'}
// answers each V8 heap space's committed size; {cmd:'alloc-start'} and
// {cmd:'alloc-stop'} sample every allocation in between, garbage included
// (alloc-census.mjs); {cmd:'gc-survival-start'} and {cmd:'gc-survival-stop'}
// answer what the young generation did in between (gc-survival.mjs); {cmd:'grow-young'} grows
// V8's young generation to its cap and answers new space's committed size (memory-run.mjs --steady);
// {cmd:'cpu'} answers the process's CPU time so far (cpu-per-request.mjs).
import { Session } from 'node:inspector';
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';
import { startGcSurvival, stopGcSurvival } from './gc-survival.mjs';

const SAMPLE_MS = 10;

export function startMemorySampler() {
  let rss = [];
  let heap = [];
  let committed = [];
  const sample = () => {
    const usage = process.memoryUsage();
    rss.push(usage.rss);
    heap.push(usage.heapUsed);
    committed.push(usage.heapTotal);
  };
  setInterval(sample, SAMPLE_MS).unref();
  process.on('message', (message) => {
    if (message?.cmd === 'gc') {
      globalThis.gc?.();
      process.send({ gc: typeof globalThis.gc === 'function', liveHeap: process.memoryUsage().heapUsed });
    } else if (message?.cmd === 'snapshot') {
      // heap-census.mjs: V8 runs a full GC before it writes a snapshot.
      process.send({ file: writeHeapSnapshot(message.file) });
    } else if (message?.cmd === 'gc-survival-start') {
      startGcSurvival();
      process.send({ started: true });
    } else if (message?.cmd === 'gc-survival-stop') {
      process.send({ survival: stopGcSurvival() });
    } else if (message?.cmd === 'grow-young') {
      process.send({ newSpace: growYoungGeneration() });
    } else if (message?.cmd === 'spaces') {
      process.send(Object.fromEntries(getHeapSpaceStatistics().map((space) => [space.space_name, space.space_size])));
    } else if (message?.cmd === 'alloc-start' || message?.cmd === 'alloc-stop') {
      sampleAllocations(message.cmd === 'alloc-start').then((profile) => process.send({ profile }));
    } else if (message?.cmd === 'reset') {
      rss = [];
      heap = [];
      committed = [];
      sample();
      process.send({ reset: true });
    } else if (message?.cmd === 'cpu') {
      // cpu-per-request.mjs: this process's CPU time so far (user + system, µs).
      const { user, system } = process.cpuUsage();
      process.send({ cpuMicros: user + system, userMicros: user, systemMicros: system });
    } else if (message?.cmd === 'read') {
      sample();
      process.send({ rss: summarize(rss), heapUsed: summarize(heap), heapTotal: summarize(committed), samples: rss.length });
    }
  });
}

/**
 * Keeps ≈ 2 M small objects (≈ 50 MiB) alive across scavenges, then drops them: V8 doubles
 * new space whenever the bytes surviving scavenges since its last growth pass its
 * capacity (heap.cc, CheckNewSpaceExpansionCriteria), so this takes it to its cap,
 * where any process under sustained load ends up.
 */
function growYoungGeneration() {
  let kept = [];
  for (let index = 0; index < 2_000_000; index += 1) kept.push({ index });
  kept = undefined;
  globalThis.gc?.();
  return getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size;
}

function summarize(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)], max: sorted[sorted.length - 1] };
}

let session;

/** V8's sampling heap profiler, keeping objects that GCs collected: where the garbage comes from. */
function sampleAllocations(start) {
  session ??= new Session();
  if (start) session.connect();
  const post = (method, params = {}) => new Promise((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))));
  if (start) return post('HeapProfiler.startSampling', { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true }).then(() => undefined);
  return post('HeapProfiler.stopSampling').then(({ profile }) => {
    session.disconnect();
    return profile;
  });
}
