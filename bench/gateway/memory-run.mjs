// Per-stream memory of a proxy: N concurrent paced Chat streams
// (default 100 chunks, gaps drawn in 20–50 ms, so they overlap) through the
// pipe-through floor and through the gateway, each proxy in its own fresh
// `node --expose-gc` process per cell (one-proxy-server.mjs). In that process
// memory-sampler.mjs samples process.memoryUsage() every 10 ms: idle = the
// median over 500 ms after the warm-up and one full GC; peak = the max while
// the N streams run; per stream = (peak − idle) / N. Live heap: heap used
// right after a full GC, at idle and once while all N streams are open (at
// 40 % of a stream's expected length), so garbage does not count. Cells interleave
// (run × streams × proxy), so drift on the shared box hits every proxy alike.
// "Young-gen step": how much V8 grew new space during the window, a one-time
// resize of the process up to V8's cap that the warm-up's length moves in or
// out of the window (300 warm-up streams: gateway 2.5× the pipe; 1500: 0.27×).
// So the bar is judged on the live heap per stream, which no GC policy moves
// (decision 0320).
// Usage: node bench/gateway/memory-run.mjs [--runs 3] [--streams 1,50,200] [--chunks 100]
//   [--interval 20] [--max-interval 50] [--warmup 300] [--floor]; BENCH_BASELINE_REF=<ref> adds
//   the gateway at that ref (its own process per cell too); --floor adds the
//   parse-and-forward floor (the gateway's transport and body reader, no runTurn).
//   BENCH_SPACES=1 prints, per cell, the growth of new and old space and what the young
//   generation did while the N streams ran (gc-survival.mjs: scavenges, survived and
//   promoted bytes, new space size at each GC). --steady grows every proxy's young generation
//   to V8's cap before the idle reading (decision 0320), so the per-stream figure is what the
//   streams hold, not when V8 decided to double new space. --prompt-kb N sends an N KiB prompt in
//   the measured streams (decision 0320: a proxy that parses the body holds what it keeps of it).
//   --reasoning-kb K: each stream thinks K KiB before its answer (decision 0320: the gateway lets
//   the reasoning go once the answer starts; the pipe never held it).
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { ask, chatStreamBody, median, medianRange, startChild, stopChild, streamOnce } from './bench-client.mjs';
import { bundleFromSource } from '../../scripts/bundle-from-source.mjs';
import { bundleGateway } from './gateway-bundle.mjs';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    streams: { type: 'string', default: '1,50,200' },
    chunks: { type: 'string', default: '100' },
    interval: { type: 'string', default: '20' },
    'max-interval': { type: 'string', default: '50' },
    warmup: { type: 'string', default: '300' },
    floor: { type: 'boolean', default: false },
    steady: { type: 'boolean', default: false },
    'prompt-kb': { type: 'string', default: '0' },
    'reasoning-kb': { type: 'string', default: '0' },
  },
});
const runs = Math.max(3, Number(args.runs));
const streamCounts = args.streams.split(',').map(Number);
const root = fileURLToPath(new URL('../../', import.meta.url));
const workDir = await mkdtemp(join(tmpdir(), 'tg-memory-bench-'));
const baselineRef = process.env.BENCH_BASELINE_REF;

const proxies = [{ name: 'pipe', args: ['pipe'] }, { name: 'gateway', args: ['gateway', await bundleGateway(root, '.', workDir, 0)] }];
if (args.floor) {
  const floorBundle = await bundleFromSource({ entryName: 'parse-forward-floor', entryFile: join(root, 'bench/gateway/parse-forward-floor.mjs'), outDir: workDir, sourceRoot: root });
  proxies.push({ name: 'parse-and-forward floor', args: ['parse-forward', floorBundle] });
}
if (baselineRef !== undefined) proxies.push({ name: `gateway @ ${baselineRef}`, args: ['gateway', await bundleGateway(root, baselineRef, workDir, 1)] });
const reasoningKib = Number(args['reasoning-kb']);
const upstream = await startChild([join(root, 'bench/gateway/upstream-server.mjs'), args.chunks, args.interval, `maxIntervalMs=${args['max-interval']}`, `reasoningKb=${reasoningKib}`]);
// --prompt-kb N: the measured streams carry an N KiB prompt, as an agent's turn does (decision 0320); the warm-up stays small.
const promptKib = Number(args['prompt-kb']);
const body = chatStreamBody('bench', promptKib);
const warmupBody = chatStreamBody('bench-warmup');
const MiB = 1024 * 1024;
const midStreamMs = 0.4 * Number(args.chunks) * ((Number(args.interval) + Number(args['max-interval'])) / 2);

/** One cell: a fresh proxy process, warmed up, idle measured, then `streams` paced streams at once. */
async function measureCell(proxy, streams) {
  const { child, info } = await startChild(['--expose-gc', join(root, 'bench/gateway/one-proxy-server.mjs'), proxy.args[0], String(upstream.info.port), ...proxy.args.slice(1)]);
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  try {
    for (let index = 0; index < Number(args.warmup); index += 1) await streamOnce(agent, info.port, warmupBody);
    await streamOnce(agent, info.port, body); // one paced stream: the timers' path too
    // --steady: V8's young generation at its cap before the idle reading (decision 0320), as in any
    // process that has carried load for a while; without it, one bounded growth can land in the window.
    if (args.steady) await ask(child, { cmd: 'grow-young' });
    const idleLive = await ask(child, { cmd: 'gc' });
    await sleep(200);
    await ask(child, { cmd: 'reset' });
    await sleep(500);
    const idle = await ask(child, { cmd: 'read' });
    const idleSpaces = await ask(child, { cmd: 'spaces' });
    await ask(child, { cmd: 'reset' });
    if (process.env.BENCH_SPACES === '1') await ask(child, { cmd: 'gc-survival-start' });
    const running = Promise.all(Array.from({ length: streams }, () => streamOnce(agent, info.port, body)));
    await sleep(midStreamMs);
    const busyLive = await ask(child, { cmd: 'gc' });
    await running;
    const peak = await ask(child, { cmd: 'read' });
    const busySpaces = await ask(child, { cmd: 'spaces' });
    if (process.env.BENCH_SPACES === '1') {
      const { survival } = await ask(child, { cmd: 'gc-survival-stop' });
      const growth = Object.entries(busySpaces).filter(([space]) => space === 'new_space' || space === 'old_space');
      console.error(`${proxy.name} ${streams}: ${growth.map(([space, size]) => `${space} +${((size - idleSpaces[space]) / MiB).toFixed(1)}`).join(', ')} MiB; ${survival.scavenges} scavenges, ${survival.fullGcs} full GCs, survived ${survival.survivedMiB.toFixed(1)} + promoted ${survival.promotedMiB.toFixed(1)} MiB, new space ${survival.newSpaceMiB.join(' → ')} MiB`);
    }
    return {
      // V8 grows the young generation in steps (doubling new space, up to a cap) once enough has survived since the
      // last step: a one-time cost of the process, not of each stream, in the window or not by the warm-up (0290).
      youngGenerationStep: busySpaces.new_space - idleSpaces.new_space,
      idleRss: idle.rss.median,
      idleHeap: idle.heapUsed.median,
      peakRss: peak.rss.max,
      perStreamRss: (peak.rss.max - idle.rss.median) / streams,
      perStreamHeap: (peak.heapUsed.max - idle.heapUsed.median) / streams,
      perStreamCommitted: (peak.heapTotal.max - idle.heapTotal.median) / streams,
      perStreamLive: (busyLive.liveHeap - idleLive.liveHeap) / streams,
      samples: peak.samples,
    };
  } finally {
    agent.destroy();
    await stopChild(child);
  }
}

const cells = new Map(); // `${streams}|${proxy}` → results
for (let run = 0; run < runs; run += 1) {
  for (const streams of streamCounts) {
    for (const proxy of proxies) {
      const key = `${streams}|${proxy.name}`;
      if (!cells.has(key)) cells.set(key, []);
      cells.get(key).push(await measureCell(proxy, streams));
    }
  }
}

const kib = (bytes) => (bytes / 1024).toFixed(0);
const mib = (bytes) => (bytes / MiB).toFixed(1);
console.log(`node ${process.version}, ${runs} runs (fresh process per cell), upstream: ${args.chunks} chunks, gaps ${args.interval}–${args['max-interval']} ms, ${args.warmup} unpaced warm-up streams per cell${promptKib > 0 ? `, ${promptKib} KiB prompt` : ''}${reasoningKib > 0 ? `, ${reasoningKib} KiB of reasoning before the answer` : ''}${args.steady ? ', young generation grown to its cap before idle (--steady)' : ''}`);
console.log('| streams | proxy | idle RSS MiB | peak RSS MiB | per stream RSS KiB | young-gen step MiB | per stream peak heap KiB | per stream live heap KiB | per stream heap committed KiB | per stream RSS × pipe | live heap × pipe | live heap ≤ 2× pipe? |');
console.log('| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
for (const streams of streamCounts) {
  const pipe = cells.get(`${streams}|pipe`);
  for (const proxy of proxies) {
    const results = cells.get(`${streams}|${proxy.name}`);
    const pick = (field) => results.map((result) => result[field]);
    const ratioOf = (field) => median(pick(field)) / median(pipe.map((result) => result[field]));
    const compared = proxy.name !== 'pipe' && streams >= 50;
    const ratio = (field) => (compared ? ratioOf(field).toFixed(2) : '');
    const bar = compared ? (ratioOf('perStreamLive') <= 2 ? 'yes' : 'no') : '';
    console.log(
      `| ${streams} | ${proxy.name} | ${medianRange(pick('idleRss'), mib)} | ${medianRange(pick('peakRss'), mib)} | ${medianRange(pick('perStreamRss'), kib)} | ${medianRange(pick('youngGenerationStep'), mib)} | ${medianRange(pick('perStreamHeap'), kib)} | ${medianRange(pick('perStreamLive'), kib)} | ${medianRange(pick('perStreamCommitted'), kib)} | ${ratio('perStreamRss')} | ${ratio('perStreamLive')} | ${bar} |`,
    );
  }
}
await stopChild(upstream.child);
await rm(workDir, { recursive: true, force: true });
