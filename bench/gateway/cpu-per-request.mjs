// CPU per request of each proxy, each in its own process (one-proxy-server.mjs): the pipe-through
// floor, the gateway of the working tree and, with BENCH_BASELINE_REF, the gateway at that ref.
// The client sends sequential streamed Chat requests (keep-alive) of `chunks` unpaced deltas; a
// proxy's CPU per request is its process's CPU time (user + system) over a round of N requests,
// divided by N. Rounds interleave the targets in a rotating order after a warm-up of each. Also
// prints the client's time to the first body byte and to the first content delta per target.
// Usage: node bench/gateway/cpu-per-request.mjs [--chunks 20] [--requests 300] [--rounds 7] [--warmup 1500] [--floor] [--usage] [--prompt-kib 0]
//   --usage: the client asks for usage itself (`stream_options.include_usage`), so the gateway sends its body
//   unchanged, as the client's bytes (decision 0322); without it the gateway adds the option and serializes.
//   --prompt-kib N: the user message is N KiB of code-like text (quotes, newlines, a non-ASCII letter), as an
//   agent's prompt is: what serializing it again costs depends on those, not only on its length.
//   --floor adds the parse-and-forward floors (parse-forward-floor.mjs): read and parse the body, re-send
//   it over node:http's client or over the gateway's undici transport, relay the bytes — no runTurn.
//   BENCH_PROFILE_DIR=<dir> starts the pipe and the gateway of the working tree with --cpu-prof (100 µs
//   samples) in <dir>/pipe and <dir>/gateway, beside the gateway's bundle:
//   `node bench/gateway/profile-by-source.mjs <dir>/gateway/CPU…cpuprofile <dir>/gateway/gateway.cjs <requests>`.
//   --otel adds the gateway of the working tree with OpenTelemetry on (R12.1): OTLP/HTTP protobuf, the SDK's
//   default batching and export intervals, to a loopback sink (otlp-sink.mjs); the other gateways run with it off.
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { ask, median, medianRange, startChild, stopChild, streamOnce, streamTimings } from './bench-client.mjs';
import { bundleFromSource } from '../../scripts/bundle-from-source.mjs';
import { bundleGateway } from './gateway-bundle.mjs';

const { values: args } = parseArgs({
  options: {
    chunks: { type: 'string', default: '20' },
    requests: { type: 'string', default: '300' },
    rounds: { type: 'string', default: '7' },
    warmup: { type: 'string', default: '1500' },
    floor: { type: 'boolean', default: false },
    otel: { type: 'boolean', default: false },
    usage: { type: 'boolean', default: false },
    'prompt-kib': { type: 'string', default: '0' },
  },
});
const root = fileURLToPath(new URL('../../', import.meta.url));
const workDir = await mkdtemp(join(tmpdir(), 'tg-cpu-bench-'));
const oneProxy = join(root, 'bench/gateway/one-proxy-server.mjs');
const baselineRef = process.env.BENCH_BASELINE_REF;
const profileDir = process.env.BENCH_PROFILE_DIR;

const upstream = await startChild([join(root, 'bench/gateway/upstream-server.mjs'), args.chunks, '0']);
const port = String(upstream.info.port);
const profiled = (name) => (profileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-interval=100', `--cpu-prof-dir=${join(profileDir, name)}`]);
const targets = { pipe: await startChild([...profiled('pipe'), oneProxy, 'pipe', port]) };
const gatewayBundle = await bundleGateway(root, '.', workDir, 0);
if (profileDir !== undefined) await mkdir(join(profileDir, 'gateway'), { recursive: true }).then(() => copyFile(gatewayBundle, join(profileDir, 'gateway', 'gateway.cjs')));
targets.gateway = await startChild([...profiled('gateway'), oneProxy, 'gateway', port, gatewayBundle]);
if (args.floor) {
  const floorBundle = await bundleFromSource({ entryName: 'parse-forward-floor', entryFile: join(root, 'bench/gateway/parse-forward-floor.mjs'), outDir: workDir, sourceRoot: root });
  targets['parse-forward, node:http client'] = await startChild([oneProxy, 'parse-forward-node', port, floorBundle]);
  targets['parse-forward, gateway transport (undici)'] = await startChild([oneProxy, 'parse-forward', port, floorBundle]);
}
if (baselineRef !== undefined) targets[`gateway @ ${baselineRef}`] = await startChild([oneProxy, 'gateway', port, await bundleGateway(root, baselineRef, workDir, 1)]);
const otlpSink = args.otel ? await startChild([join(root, 'bench/gateway/otlp-sink.mjs')]) : undefined;
if (otlpSink !== undefined) {
  const otelEnv = { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${otlpSink.info.port}` };
  targets['gateway, OTel on'] = await startChild([oneProxy, 'gateway', port, await bundleGateway(root, '.', workDir, 2)], otelEnv);
}

const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
const promptKib = Number(args['prompt-kib']);
const PROMPT_LINE = '\tconst label = "café"; // a "quoted" value\n';
const body = JSON.stringify({
  model: 'bench',
  stream: true,
  ...(args.usage ? { stream_options: { include_usage: true } } : {}),
  messages: [{ role: 'user', content: promptKib > 0 ? PROMPT_LINE.repeat(Math.ceil((promptKib * 1024) / PROMPT_LINE.length)) : 'hello' }],
});
const names = Object.keys(targets);
for (const name of names) for (let index = 0; index < Number(args.warmup); index += 1) await streamOnce(agent, targets[name].info.port, body);

const cpu = Object.fromEntries(names.map((name) => [name, []]));
const systemCpu = Object.fromEntries(names.map((name) => [name, []]));
const ttfb = Object.fromEntries(names.map((name) => [name, []]));
const firstContent = Object.fromEntries(names.map((name) => [name, []]));
for (let round = 0; round < Number(args.rounds); round += 1) {
  const order = names.map((_, index) => names[(index + round) % names.length]);
  for (const name of order) {
    const { child, info } = targets[name];
    const before = await ask(child, { cmd: 'cpu' });
    const timings = [];
    for (let index = 0; index < Number(args.requests); index += 1) timings.push(await streamTimings(agent, info.port, body));
    const after = await ask(child, { cmd: 'cpu' });
    cpu[name].push((after.cpuMicros - before.cpuMicros) / 1000 / Number(args.requests));
    systemCpu[name].push((after.systemMicros - before.systemMicros) / 1000 / Number(args.requests));
    ttfb[name].push(median(timings.map((timing) => timing.firstByteMs)));
    firstContent[name].push(median(timings.map((timing) => timing.firstContentMs)));
  }
}

const ms = (value) => value.toFixed(3);
console.log(`node ${process.version}, ${args.rounds} rounds × ${args.requests} sequential streamed requests per target, ${args.chunks} unpaced chunks each, ${args.warmup} warm-up requests per target`);
console.log('Cells: median over the rounds (range); "− pipe" is paired by round. First content: the first text delta (the role chunk before it is held until the attempt has output, R1.2).');
console.log('| target | CPU ms per request | of which system | × pipe | first body byte ms | − pipe | first content delta ms | − pipe |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const name of names) {
  const ratio = cpu[name].map((value, round) => value / cpu.pipe[round]);
  const added = (series) => series[name].map((value, round) => value - series.pipe[round]);
  const pipe = name === 'pipe';
  console.log(`| ${name} | ${medianRange(cpu[name], ms)} | ${ms(median(systemCpu[name]))} | ${pipe ? '' : medianRange(ratio, (value) => value.toFixed(2))} | ${medianRange(ttfb[name], ms)} | ${pipe ? '' : medianRange(added(ttfb), ms)} | ${medianRange(firstContent[name], ms)} | ${pipe ? '' : medianRange(added(firstContent), ms)} |`);
}
agent.destroy();
for (const { child } of Object.values(targets)) {
  // SIGINT and a wait for the exit: --cpu-prof writes its profile then (a SIGTERM right after would cut it).
  if (profileDir !== undefined) await new Promise((resolve) => child.once('exit', resolve).kill('SIGINT'));
  else await stopChild(child);
}
if (otlpSink !== undefined) {
  console.log(`OTLP sink received: ${JSON.stringify(await ask(otlpSink.child, { cmd: 'counts' }))}`);
  await stopChild(otlpSink.child);
}
await stopChild(upstream.child);
await rm(workDir, { recursive: true, force: true });
