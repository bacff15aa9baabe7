// First byte with a pausing upstream: the upstream flushes its
// response headers, then is silent for `pause` ms before its first chunk (a
// model that thinks before its first token). As the client sees it: ms to
// the response headers, to the first body byte and to the first content delta,
// direct / pipe-through floor / gateway (one process for both proxies,
// proxy-server.mjs, as run.mjs), sequential streams interleaved per round,
// after unpaced warm-up streams (no pause, no pacing) to every target.
// Usage: node bench/gateway/first-byte-run.mjs [--runs 5] [--streams 20] [--pause 50] [--warmup 1000]
// BENCH_BASELINE_REF=<ref> adds the gateway at that ref (its own process); the current gateway then
// runs in a process of its own too, so each process's CPU time is its gateway's alone, and a
// second table gives CPU per relayed chunk (Linux: /proc/<pid>/stat, all threads).
// --otel adds the current gateway with OpenTelemetry on (its own process; OTLP/HTTP protobuf to a
// loopback sink, otlp-sink.mjs, the SDK's default batching), beside the others with it off.
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { bundleFromSource } from '../../scripts/bundle-from-source.mjs';
import { readFileSync } from 'node:fs';
import { median, medianRange, startChild, stopChild, streamOnce, streamTimings } from './bench-client.mjs';
import { extractSourceTree } from './source-trees.mjs';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    streams: { type: 'string', default: '20' },
    pause: { type: 'string', default: '50' },
    warmup: { type: 'string', default: '1000' },
    otel: { type: 'boolean', default: false },
  },
});
const runs = Math.max(3, Number(args.runs));
const root = fileURLToPath(new URL('../../', import.meta.url));
const workDir = await mkdtemp(join(tmpdir(), 'tg-first-byte-'));
const bundle = (sourceRoot, outDir) => bundleFromSource({ entryName: 'proxy-server', entryFile: join(sourceRoot, 'bench/gateway/proxy-server.mjs'), outDir, sourceRoot });
const baselineRef = process.env.BENCH_BASELINE_REF;

const upstream = await startChild([join(root, 'bench/gateway/upstream-server.mjs'), '20', '2', `firstPauseMs=${args.pause}`]);
const currentBundle = await bundle(root, workDir);
const proxies = await startChild([currentBundle, String(upstream.info.port)]);
const targets = { direct: upstream.info.port, pipe: proxies.info.pipePort, gateway: proxies.info.gatewayPort };
/** Target name → the process whose CPU time is that gateway's alone. */
const gatewayProcesses = {};
let baseline;
let current;
if (baselineRef !== undefined) {
  current = await startChild([currentBundle, String(upstream.info.port)]);
  targets.gateway = current.info.gatewayPort;
  gatewayProcesses.gateway = current.child.pid;
  baseline = await startChild([await bundle(await extractSourceTree(root, baselineRef, join(workDir, 'baseline')), join(workDir, 'baseline-out')), String(upstream.info.port)]);
  targets[`gateway @ ${baselineRef}`] = baseline.info.gatewayPort;
  gatewayProcesses[`gateway @ ${baselineRef}`] = baseline.child.pid;
}
let otlpSink;
let otelOn;
if (args.otel) {
  otlpSink = await startChild([join(root, 'bench/gateway/otlp-sink.mjs')]);
  otelOn = await startChild([currentBundle, String(upstream.info.port)], { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${otlpSink.info.port}` });
  targets['gateway, OTel on'] = otelOn.info.gatewayPort;
  gatewayProcesses['gateway, OTel on'] = otelOn.child.pid;
  if (current === undefined) {
    current = await startChild([currentBundle, String(upstream.info.port)]);
    targets.gateway = current.info.gatewayPort;
    gatewayProcesses.gateway = current.child.pid;
  }
}
/** User + system CPU of a process and all its threads, in ms (clock ticks of 10 ms). */
const cpuMsOf = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
const body = JSON.stringify({ model: 'bench', stream: true, messages: [{ role: 'user', content: 'hello' }] });
const warmupBody = JSON.stringify({ model: 'bench-warmup', stream: true, messages: [{ role: 'user', content: 'hello' }] });

for (const port of Object.values(targets)) for (let index = 0; index < Number(args.warmup); index += 1) await streamOnce(agent, port, warmupBody);
for (const port of Object.values(targets)) await streamTimings(agent, port, body); // the paused path once, untimed

const FIELDS = ['headersMs', 'firstByteMs', 'firstContentMs'];
const perRun = Object.fromEntries(Object.keys(targets).map((name) => [name, []]));
const cpuBefore = Object.fromEntries(Object.entries(gatewayProcesses).map(([name, pid]) => [name, cpuMsOf(pid)]));
for (let run = 0; run < runs; run += 1) {
  const samples = Object.fromEntries(Object.keys(targets).map((name) => [name, []]));
  // Interleaved stream by stream, so drift on the shared box hits every target alike.
  for (let index = 0; index < Number(args.streams); index += 1) for (const [name, port] of Object.entries(targets)) samples[name].push(await streamTimings(agent, port, body));
  for (const name of Object.keys(targets)) perRun[name].push(Object.fromEntries(FIELDS.map((field) => [field, median(samples[name].map((sample) => sample[field]))])));
}

const cpuAfter = Object.fromEntries(Object.entries(gatewayProcesses).map(([name, pid]) => [name, cpuMsOf(pid)]));

const ms = (value) => value.toFixed(2);
console.log(`node ${process.version}, ${runs} runs × ${args.streams} sequential streams per target; upstream: headers, ${args.pause} ms pause, then 20 chunks 2 ms apart; ${args.warmup} unpaced warm-up streams per target`);
console.log('Per run the median over its streams; cells: median over runs (range). "− pipe": the paired difference to the pipe in the same run.');
console.log('| target | headers ms | first body byte ms | first content delta ms | headers − pipe | first body byte − pipe | first content − pipe |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const name of Object.keys(targets)) {
  const column = (field) => perRun[name].map((result) => result[field]);
  const minusPipe = (field) => perRun[name].map((result, run) => result[field] - perRun.pipe[run][field]);
  const differences = name === 'pipe' ? ['', '', ''] : FIELDS.map((field) => medianRange(minusPipe(field), ms));
  console.log(`| ${name} | ${FIELDS.map((field) => medianRange(column(field), ms)).join(' | ')} | ${differences.join(' | ')} |`);
}
if (Object.keys(gatewayProcesses).length > 0) {
  const chunks = runs * Number(args.streams) * 20;
  console.log('');
  console.log(`CPU of each gateway's own process over the timed streams (${chunks} relayed chunks each; /proc ticks of 10 ms):`);
  console.log('| gateway | CPU ms | CPU µs per chunk | CPU µs per stream |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const name of Object.keys(gatewayProcesses)) {
    const cpu = cpuAfter[name] - cpuBefore[name];
    console.log(`| ${name} | ${cpu} | ${((cpu * 1000) / chunks).toFixed(2)} | ${((cpu * 1000) / (runs * Number(args.streams))).toFixed(1)} |`);
  }
}
agent.destroy();
await stopChild(upstream.child);
if (current !== undefined) await stopChild(current.child);
await stopChild(proxies.child);
if (baseline !== undefined) await stopChild(baseline.child);
if (otelOn !== undefined) await stopChild(otelOn.child);
if (otlpSink !== undefined) await stopChild(otlpSink.child);
await rm(workDir, { recursive: true, force: true });
