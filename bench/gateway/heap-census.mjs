// What a proxy holds per open stream, by kind of object (a
// profiling step): a heap snapshot of the proxy's process at idle after the
// warm-up, another while N paced streams are open, and the difference per
// stream, grouped by V8's node type and constructor/closure name.
// Usage: node bench/gateway/heap-census.mjs [pipe|gateway] [streams=200] [top=40]
// (the gateway is the working tree's, bundled like memory-run.mjs does;
// BENCH_BASELINE_REF=<ref> takes the gateway as it is at that ref instead).
// BENCH_BY_LOCATION=1 splits closures by script id:line (BENCH_KEEP=1 keeps the bundle);
// BENCH_PROMPT_KB=N gives the open streams an N KiB prompt (decision 0320);
// BENCH_REASONING_KB=K makes every stream think K KiB before its answer (decision 0320).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { ask, chatStreamBody, startChild, stopChild, streamOnce } from './bench-client.mjs';
import { bundleGateway } from './gateway-bundle.mjs';

const [kind = 'gateway', streamsText = '200', topText = '40'] = process.argv.slice(2);
const streams = Number(streamsText);
const root = fileURLToPath(new URL('../../', import.meta.url));
const workDir = await mkdtemp(join(tmpdir(), 'tg-heap-census-'));
const gatewayRef = process.env.BENCH_BASELINE_REF ?? '.';
const proxyArgs = kind === 'gateway' ? ['gateway', await bundleGateway(root, gatewayRef, workDir, 0)] : [kind];
const upstream = await startChild([join(root, 'bench/gateway/upstream-server.mjs'), '100', '20', 'maxIntervalMs=50', `reasoningKb=${process.env.BENCH_REASONING_KB ?? 0}`]);
const { child, info } = await startChild(['--expose-gc', join(root, 'bench/gateway/one-proxy-server.mjs'), proxyArgs[0], String(upstream.info.port), ...proxyArgs.slice(1)]);
const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
const promptKib = Number(process.env.BENCH_PROMPT_KB ?? 0);
const body = (model) => chatStreamBody(model, model === 'bench' ? promptKib : 0);

/** Count and self size per "type:name" in a V8 heap snapshot file. */
async function census(file) {
  const snapshot = JSON.parse(await readFile(file, 'utf8'));
  const fields = snapshot.snapshot.meta.node_fields;
  const types = snapshot.snapshot.meta.node_types[0];
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((field) => fields.indexOf(field));
  // Closures are told apart by where their code is (script id:line), anonymous arrows included.
  const where = new Map();
  const locations = snapshot.locations ?? [];
  for (let index = 0; index + 3 < locations.length; index += 4) where.set(locations[index], `@${locations[index + 1]}:${locations[index + 2] + 1}`);
  const totals = new Map();
  for (let index = 0; index < snapshot.nodes.length; index += fields.length) {
    const type = types[snapshot.nodes[index + typeAt]];
    const name = type === 'string' || type === 'concatenated string' || type === 'sliced string' || type === 'number' ? '' : snapshot.strings[snapshot.nodes[index + nameAt]].slice(0, 60);
    const key = `${type}:${name}${type === 'closure' && process.env.BENCH_BY_LOCATION === '1' ? (where.get(index) ?? '') : ''}`;
    const total = totals.get(key) ?? { count: 0, size: 0 };
    total.count += 1;
    total.size += snapshot.nodes[index + sizeAt];
    totals.set(key, total);
  }
  return totals;
}

for (let index = 0; index < 300; index += 1) await streamOnce(agent, info.port, body('bench-warmup'));
await streamOnce(agent, info.port, body('bench'));
await sleep(200);
const idle = await ask(child, { cmd: 'snapshot', file: join(workDir, 'idle.heapsnapshot') });
const running = Promise.all(Array.from({ length: streams }, () => streamOnce(agent, info.port, body('bench'))));
await sleep(1400);
const busy = await ask(child, { cmd: 'snapshot', file: join(workDir, 'busy.heapsnapshot') });
await running;
const [before, after] = [await census(idle.file), await census(busy.file)];
const rows = [...after].map(([key, total]) => {
  const base = before.get(key) ?? { count: 0, size: 0 };
  return { key, count: (total.count - base.count) / streams, bytes: (total.size - base.size) / streams };
});
rows.sort((a, b) => b.bytes - a.bytes);
const sum = rows.reduce((total, row) => total + row.bytes, 0);
console.log(`${kind}${kind === 'gateway' && gatewayRef !== '.' ? ` @ ${gatewayRef}` : ''}, ${streams} open streams: ${(sum / 1024).toFixed(1)} KiB of heap objects per stream (self sizes)`);
console.log('| type:name | objects per stream | bytes per stream |');
console.log('| --- | ---: | ---: |');
for (const row of rows.slice(0, Number(topText))) console.log(`| ${row.key} | ${row.count.toFixed(2)} | ${row.bytes.toFixed(0)} |`);
agent.destroy();
await stopChild(child);
await stopChild(upstream.child);
if (process.env.BENCH_KEEP === '1') console.log(`bundle kept in ${workDir}`);
else await rm(workDir, { recursive: true, force: true });
