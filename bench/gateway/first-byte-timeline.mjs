// Where a streamed request's first byte waits, inside the proxy: the proxy runs in this process,
// timestamped by node:http's and undici's diagnostics channels (request in → upstream request made →
// sent → upstream head → first body write to the client → that write handed to the socket: node:http
// corks a response's socket until the next tick); the bench upstream and a client of
// sequential streamed Chat requests run as child processes. For the gateway (`gateway`, a tree or
// BENCH_BASELINE_REF's) and the pipe (`pipe`, which has no undici marks).
//   node bench/gateway/first-byte-timeline.mjs [--chunks 2000] [--requests 100] [--warmup 300] [--burst] [--gap-ms 0]
//   --gap-ms N: the client waits N ms before each request (a request after an idle spell, as most are).
//   --burst: the upstream sends its whole body in one write after the head (upstream-server.mjs burst=1),
//   so the proxy's first read holds hundreds of records (decision 0342).
// Each target runs in a fresh process of its own (`--target` is internal).
import { execFile, spawn } from 'node:child_process';
import diagnostics from 'node:diagnostics_channel';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance, PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { median, startChild, stopChild, streamOnce } from './bench-client.mjs';
import { bundleGateway } from './gateway-bundle.mjs';
import { createPipeProxy } from './pipe-proxy.mjs';

const { values: args } = parseArgs({
  options: {
    chunks: { type: 'string', default: '2000' },
    burst: { type: 'boolean', default: false },
    'gap-ms': { type: 'string', default: '0' },
    requests: { type: 'string', default: '100' },
    warmup: { type: 'string', default: '300' },
    target: { type: 'string' },
    bundle: { type: 'string' },
    client: { type: 'string' },
  },
});
const here = fileURLToPath(import.meta.url);
const root = fileURLToPath(new URL('../../', import.meta.url));
const MARKS = ['upstreamRequest', 'upstreamSent', 'upstreamHead', 'firstWrite', 'socketWrite'];

/** The client: sequential streamed requests to `port`; warm-up first, then the timed ones. */
async function runClient(port) {
  const agent = new Agent({ keepAlive: true });
  const body = JSON.stringify({ model: 'bench', stream: true, messages: [{ role: 'user', content: 'hello' }] });
  const firstBytes = [];
  for (let index = 0; index < Number(args.warmup) + Number(args.requests); index += 1) {
    if (Number(args['gap-ms']) > 0) await new Promise((resolve) => setTimeout(resolve, Number(args['gap-ms'])));
    const { ttfbMs } = await streamOnce(agent, port, body);
    if (index >= Number(args.warmup)) firstBytes.push(ttfbMs);
  }
  agent.destroy();
  process.stdout.write(`${JSON.stringify({ clientFirstByteMs: median(firstBytes) })}\n`);
}

/** One proxy in this process, its first-byte path timestamped per request. */
async function runTarget(kind, bundle) {
  const requests = [];
  let current;
  const mark = (name) => {
    if (current !== undefined && current[name] === undefined) current[name] = performance.now();
  };
  diagnostics.subscribe('http.server.request.start', () => requests.push((current = { start: performance.now() })));
  diagnostics.subscribe('undici:request:create', () => mark('upstreamRequest'));
  diagnostics.subscribe('undici:client:sendHeaders', () => mark('upstreamSent'));
  diagnostics.subscribe('undici:request:headers', () => mark('upstreamHead'));
  const write = ServerResponse.prototype.write;
  ServerResponse.prototype.write = function (...writeArgs) {
    mark('firstWrite');
    return write.apply(this, writeArgs);
  };
  // The first write's bytes reach the socket when node:http uncorks it (the next tick after the write).
  for (const method of ['_writev', '_write']) {
    const original = Socket.prototype[method];
    Socket.prototype[method] = function (...writeArgs) {
      if (current?.firstWrite !== undefined && this._httpMessage instanceof ServerResponse) mark('socketWrite');
      return original.apply(this, writeArgs);
    };
  }
  const gcs = [];
  new PerformanceObserver((list) => gcs.push(...list.getEntries().map((entry) => ({ at: entry.startTime, ms: entry.duration })))).observe({ entryTypes: ['gc'] });

  const upstream = await startChild([join(root, 'bench/gateway/upstream-server.mjs'), args.chunks, '0', ...(args.burst ? ['burst=1'] : [])]);
  let port;
  if (kind === 'pipe') {
    const server = createPipeProxy(upstream.info.port);
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = server.address().port;
  } else {
    const { createGateway } = createRequire(import.meta.url)(bundle);
    const gateway = createGateway({ port: 0, upstreams: { chat: `http://127.0.0.1:${upstream.info.port}/v1` }, env: { OPENAI_API_KEY: 'sk-bench' } });
    port = (await gateway.listen()).port;
  }
  const { stdout } = await promisify(execFile)(process.execPath, [here, '--client', String(port), '--gap-ms', args['gap-ms'], '--chunks', args.chunks, '--requests', args.requests, '--warmup', args.warmup], { timeout: 600_000 });
  await stopChild(upstream.child);
  const timed = requests.slice(-Number(args.requests));
  const since = (name) => median(timed.filter((request) => request[name] !== undefined).map((request) => request[name] - request.start));
  const gcMs = median(timed.map((request) => gcs.filter((gc) => gc.at >= request.start && gc.at < (request.firstWrite ?? request.start)).reduce((sum, gc) => sum + gc.ms, 0)));
  process.stdout.write(`${JSON.stringify({ ...JSON.parse(stdout), ...Object.fromEntries(MARKS.map((name) => [name, since(name)])), gcMs })}\n`);
  process.exit(0);
}

async function runAll() {
  const workDir = await mkdtemp(join(tmpdir(), 'tg-first-byte-'));
  const targets = [['pipe', undefined], ['gateway', await bundleGateway(root, '.', workDir, 0)]];
  const ref = process.env.BENCH_BASELINE_REF;
  if (ref !== undefined) targets.push([`gateway @ ${ref}`, await bundleGateway(root, ref, workDir, 1)]);
  const rows = [];
  for (const [name, bundle] of targets) {
    const { stdout } = await promisify(execFile)(process.execPath, [here, '--target', name === 'pipe' ? 'pipe' : 'gateway', ...(bundle ? ['--bundle', bundle] : []), ...(args.burst ? ['--burst'] : []), '--gap-ms', args['gap-ms'], '--chunks', args.chunks, '--requests', args.requests, '--warmup', args.warmup], { timeout: 900_000 });
    const row = JSON.parse(stdout.trim().split('\n').at(-1));
    const ms = (value) => (Number.isFinite(value) ? value.toFixed(3) : '');
    rows.push(`| ${name} | ${ms(row.clientFirstByteMs)} | ${MARKS.map((mark) => ms(row[mark])).join(' | ')} | ${ms(row.gcMs)} |`);
  }
  await rm(workDir, { recursive: true, force: true });
  console.log(`node ${process.version}, ${args.chunks} unpaced chunks per stream${args.burst ? ', sent in one write' : ''}${Number(args['gap-ms']) > 0 ? `, ${args['gap-ms']} ms idle before each request` : ''}, ${args.warmup} warm-up then ${args.requests} sequential streamed requests per target, medians in ms.`);
  console.log('Inside the proxy, from the request head parsed to: the upstream request made, its head sent, the upstream head, the first body write to the client, its bytes handed to the socket; GC: collector time in that window.');
  console.log('| target | client first byte | upstream request made | sent | upstream head | first write | socket write | GC |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const row of rows) console.log(row);
}

if (args.client !== undefined) await runClient(Number(args.client));
else if (args.target !== undefined) await runTarget(args.target, args.bundle);
else await runAll();
