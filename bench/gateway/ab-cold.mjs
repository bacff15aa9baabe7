// A freshly started gateway's time to first byte, precise enough to compare
// small changes (decision 0320): every variant lives in ONE process and gets
// one request in turn — direct, the parse-and-forward floor and each gateway
// tree, in an order that rotates every step — so drift on the shared box, the
// warming of Node's own code and the place in the order hit them alike. Sequential paced Chat streams (the bench's upstream), the
// first 20 per target dropped; TTFB p50 over the rest.
// Usage: node bench/gateway/ab-cold.mjs [ref|. ...] (default: HEAD and the working tree ".")
// BENCH_AB_REQUESTS (default 160, as many as run.mjs's cold figure sends), BENCH_AB_ROUNDS (default 3 processes).
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleFromSource } from '../../scripts/bundle-from-source.mjs';
import { median, startChild, streamOnce } from './bench-client.mjs';
import { bundleGateway } from './gateway-bundle.mjs';

const refs = process.argv.length > 2 ? process.argv.slice(2) : ['HEAD', '.'];
const requests = Number(process.env.BENCH_AB_REQUESTS ?? 160);
const rounds = Number(process.env.BENCH_AB_ROUNDS ?? 3);
const SKIPPED = 20;
const root = fileURLToPath(new URL('../../', import.meta.url));
const workDir = await mkdtemp(join(tmpdir(), 'tg-ab-cold-'));

const gatewayBundles = [];
for (const [index, ref] of refs.entries()) gatewayBundles.push(await bundleGateway(root, ref, workDir, index));
const server = await bundleFromSource({ entryName: 'ab-server', entryFile: join(root, 'bench/gateway/ab-server.mjs'), outDir: workDir, sourceRoot: root });

const body = JSON.stringify({ model: 'bench', stream: true, messages: [{ role: 'user', content: 'hello' }] });
const names = ['direct', 'parse-and-forward floor', ...refs.map((ref) => `gateway @ ${ref === '.' ? 'working tree' : ref}`)];
const perRound = names.map(() => []);
for (let round = 0; round < rounds; round += 1) {
  const upstream = await startChild([join(root, 'bench/gateway/upstream-server.mjs'), '100', '2']);
  const proxies = await startChild([server, String(upstream.info.port), ...gatewayBundles]);
  const ports = [upstream.info.port, proxies.info.floor, ...proxies.info.gateways];
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  const samples = ports.map(() => []);
  for (let index = 0; index < requests; index += 1) {
    // The order rotates every step: the target that follows an idle spell of the proxies' process
    // (right after `direct`) pays its wake-up, so no target may always hold that place.
    for (let offset = 0; offset < ports.length; offset += 1) {
      const target = (index + offset) % ports.length;
      const { ttfbMs: ttfb } = await streamOnce(agent, ports[target], body);
      if (index >= SKIPPED) samples[target].push(ttfb);
    }
  }
  samples.forEach((values, target) => perRound[target].push(median(values)));
  agent.destroy();
  upstream.child.kill();
  proxies.child.kill();
}

console.log(`node ${process.version}, ${rounds} fresh processes × ${requests} sequential paced streams per target (first ${SKIPPED} dropped); TTFB p50 per process, ms`);
console.log('| target | TTFB p50 per process | added over direct (median) |');
console.log('| --- | ---: | ---: |');
const directMedian = median(perRound[0]);
for (const [target, name] of names.entries()) {
  const added = target === 0 ? '' : (median(perRound[target].map((value, round) => value - perRound[0][round]))).toFixed(2);
  console.log(`| ${name} | ${perRound[target].map((value) => value.toFixed(2)).join(', ')} | ${target === 0 ? `(${directMedian.toFixed(2)})` : added} |`);
}
await rm(workDir, { recursive: true, force: true });
