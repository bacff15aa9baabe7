// Where a proxy's per-chunk garbage comes from (a profiling step):
// V8's sampling heap profiler in the proxy's process (memory-sampler.mjs,
// collected objects included) while N paced streams run; bytes allocated per
// upstream chunk by allocating function (self), top N.
// Usage: [BENCH_CHUNKS=100] node bench/gateway/alloc-census.mjs [pipe|gateway] [streams=200] [top=40]
// BENCH_KEEP=1 keeps the bundle (its path is printed) to look the lines up.
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ask, startChild, stopChild, streamOnce } from './bench-client.mjs';
import { bundleGateway } from './gateway-bundle.mjs';

const [kind = 'gateway', streamsText = '200', topText = '40'] = process.argv.slice(2);
const streams = Number(streamsText);
const CHUNKS = Number(process.env.BENCH_CHUNKS ?? 100);
const root = fileURLToPath(new URL('../../', import.meta.url));
const workDir = await mkdtemp(join(tmpdir(), 'tg-alloc-census-'));
const proxyArgs = kind === 'gateway' ? ['gateway', await bundleGateway(root, '.', workDir, 0)] : [kind];
const upstream = await startChild([join(root, 'bench/gateway/upstream-server.mjs'), String(CHUNKS), '20', 'maxIntervalMs=50']);
const { child, info } = await startChild([join(root, 'bench/gateway/one-proxy-server.mjs'), proxyArgs[0], String(upstream.info.port), ...proxyArgs.slice(1)]);
const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
const body = (model) => JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'hello' }] });

for (let index = 0; index < 300; index += 1) await streamOnce(agent, info.port, body('bench-warmup'));
await streamOnce(agent, info.port, body('bench'));
await ask(child, { cmd: 'alloc-start' });
await Promise.all(Array.from({ length: streams }, () => streamOnce(agent, info.port, body('bench'))));
const { profile } = await ask(child, { cmd: 'alloc-stop' });

const bySite = new Map();
(function walk(node) {
  const frame = node.callFrame;
  const key = `${frame.functionName || '(anonymous)'} ${basename(frame.url)}:${frame.lineNumber + 1}`;
  bySite.set(key, (bySite.get(key) ?? 0) + node.selfSize);
  for (const childNode of node.children) walk(childNode);
})(profile.head);
const perChunk = (bytes) => bytes / (streams * (CHUNKS + 4)); // + role, finish, usage, [DONE]
const rows = [...bySite].sort((a, b) => b[1] - a[1]);
const total = rows.reduce((sum, [, bytes]) => sum + bytes, 0);
console.log(`${kind}, ${streams} paced streams: ${perChunk(total).toFixed(0)} bytes allocated per upstream record (sampled, garbage included)`);
console.log('| allocating function (bundle line) | bytes per record |');
console.log('| --- | ---: |');
for (const [site, bytes] of rows.slice(0, Number(topText))) console.log(`| ${site} | ${perChunk(bytes).toFixed(0)} |`);
agent.destroy();
await stopChild(child);
await stopChild(upstream.child);
if (process.env.BENCH_KEEP === '1') console.log(`bundle kept in ${workDir}`);
else await rm(workDir, { recursive: true, force: true });
