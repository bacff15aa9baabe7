// Gateway overhead bench: time to first byte and total time of a
// streamed Chat response — direct to the upstream, through a minimal
// pipe-through proxy (the floor), and through the turnguard gateway — at 1
// and 50 concurrent streams, medians of ≥5 interleaved runs, loopback only.
// Usage: node bench/gateway/run.mjs [runs=7] [chunks=100] [intervalMs=2]
// BENCH_BASELINE_REF=<git ref> also benches the gateway as it is at that ref
// (extracted read-only with `git archive`), side by side in the same run;
// BENCH_GLOBAL_FETCH=1 adds the working tree's gateway on the global fetch.
// BENCH_WARMUP_REQUESTS=N (default 2000) unpaced streams go to every target
// first, so V8 has optimised each one's per-request path (steady state, as a
// gateway that has been up for a while); 0 measures after the short warm-up only.
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleFromSource } from '../../scripts/bundle-from-source.mjs';
import { median, startChild, streamOnce as streamOnceWith } from './bench-client.mjs';
import { extractSourceTree } from './source-trees.mjs';

const runs = Math.max(5, Number(process.argv[2] ?? 7));
const chunks = Number(process.argv[3] ?? 100);
const intervalMs = Number(process.argv[4] ?? 2);
const SEQUENTIAL_STREAMS = 20;
const WARMUP_REQUESTS = Number(process.env.BENCH_WARMUP_REQUESTS ?? 2000);
const CONCURRENT_STREAMS = 50;
const root = fileURLToPath(new URL('../../', import.meta.url));
const workDir = await mkdtemp(join(tmpdir(), 'tg-gateway-bench-'));

/** Bundles bench/gateway/proxy-server.mjs of the tree at `sourceRoot` into `outDir`/proxy-server.cjs. */
function bundleProxyServer(sourceRoot, outDir) {
  return bundleFromSource({ entryName: 'proxy-server', entryFile: join(sourceRoot, 'bench/gateway/proxy-server.mjs'), outDir, sourceRoot });
}

const proxyServer = await bundleProxyServer(root, workDir);
const baselineRef = process.env.BENCH_BASELINE_REF;
const baselineServer =
  baselineRef === undefined ? undefined : await bundleProxyServer(await extractSourceTree(root, baselineRef, join(workDir, 'baseline')), join(workDir, 'baseline-out'));

const upstream = await startChild([join(root, 'bench/gateway/upstream-server.mjs'), String(chunks), String(intervalMs)]);
// BENCH_PROXY_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the proxies' process.
const proxyNodeArgs = (process.env.BENCH_PROXY_NODE_ARGS ?? '').split(' ').filter(Boolean);
const proxies = await startChild([...proxyNodeArgs, proxyServer, String(upstream.info.port)]);
const baseline = baselineServer === undefined ? undefined : await startChild([...proxyNodeArgs, baselineServer, String(upstream.info.port)]);
const targets = { direct: upstream.info.port, pipe: proxies.info.pipePort, gateway: proxies.info.gatewayPort };
if (proxies.info.globalFetchGatewayPort !== undefined) targets['gateway (global fetch)'] = proxies.info.globalFetchGatewayPort;
if (baseline !== undefined) targets[`gateway @ ${baselineRef}`] = baseline.info.gatewayPort;
const gateways = Object.keys(targets).filter((name) => name.startsWith('gateway'));
const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
const body = JSON.stringify({ model: 'bench', stream: true, messages: [{ role: 'user', content: 'hello' }] });
const warmupBody = JSON.stringify({ model: 'bench-warmup', stream: true, messages: [{ role: 'user', content: 'hello' }] });

const streamOnce = (port, requestBody = body) => streamOnceWith(agent, port, requestBody);

/** 1 stream at a time: median TTFB and total over SEQUENTIAL_STREAMS streams. */
async function runSequential(port) {
  const results = [];
  for (let index = 0; index < SEQUENTIAL_STREAMS; index += 1) results.push(await streamOnce(port));
  return { ttfbMs: median(results.map((r) => r.ttfbMs)), totalMs: median(results.map((r) => r.totalMs)) };
}

/** 50 streams at once: median TTFB and the makespan (first start to last end). */
async function runConcurrent(port) {
  const started = performance.now();
  const results = await Promise.all(Array.from({ length: CONCURRENT_STREAMS }, () => streamOnce(port)));
  return { ttfbMs: median(results.map((r) => r.ttfbMs)), totalMs: performance.now() - started };
}

// Steady state: a request path that ran a few dozen times is still interpreted by V8
// (--trace-opt: forwardTurn, runTurn, ClientRequest… unoptimised after 150 paced streams).
for (const port of Object.values(targets)) for (let index = 0; index < WARMUP_REQUESTS; index += 1) await streamOnce(port, warmupBody);

const table = [];
for (const [label, runOne] of [
  ['1', runSequential],
  [String(CONCURRENT_STREAMS), runConcurrent],
]) {
  for (const port of Object.values(targets)) await runOne(port); // warm-up: JIT, keep-alive sockets
  const samples = Object.fromEntries(Object.keys(targets).map((name) => [name, []]));
  // Interleaved so drift on the shared box hits every path alike.
  for (let run = 0; run < runs; run += 1) for (const [name, port] of Object.entries(targets)) samples[name].push(await runOne(port));
  const pick = (name, field) => median(samples[name].map((sample) => sample[field]));
  for (const name of gateways) {
    table.push({
      streams: label,
      gateway: name,
      ttfb: { direct: pick('direct', 'ttfbMs'), pipe: pick('pipe', 'ttfbMs'), gateway: pick(name, 'ttfbMs') },
      total: { direct: pick('direct', 'totalMs'), pipe: pick('pipe', 'totalMs'), gateway: pick(name, 'totalMs') },
    });
  }
}

const ms = (value) => value.toFixed(2);
console.log(`node ${process.version}, ${runs} runs, upstream: ${chunks} chunks every ${intervalMs} ms, ${WARMUP_REQUESTS} unpaced warm-up streams per target`);
console.log('| streams | gateway | TTFB direct | TTFB pipe | TTFB gateway | added TTFB pipe | added TTFB gateway | total direct | total pipe | total gateway | gateway / pipe |');
console.log('| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const row of table) {
  console.log(
    `| ${row.streams} | ${row.gateway} | ${ms(row.ttfb.direct)} | ${ms(row.ttfb.pipe)} | ${ms(row.ttfb.gateway)} | ${ms(row.ttfb.pipe - row.ttfb.direct)} | ${ms(row.ttfb.gateway - row.ttfb.direct)} | ${ms(row.total.direct)} | ${ms(row.total.pipe)} | ${ms(row.total.gateway)} | ${(row.total.gateway / row.total.pipe).toFixed(2)}× |`,
  );
}
agent.destroy();
upstream.child.kill();
proxies.child.kill('SIGINT');
baseline?.child.kill('SIGINT');
await rm(workDir, { recursive: true, force: true });
