// Idle keep-alive reuse: a client pool (http.Agent keepAlive, 50
// sockets) runs a wave of 50 concurrent streams, then after idle gaps of
// 4, 5 and 6 s another wave each, on the same sockets where the server kept
// them. Counted per wave: streams that failed with ECONNRESET / socket hang up
// (or any other error), and how many went out on a reused socket. Targets,
// each in its own process (one-proxy-server.mjs) and run at the same time:
// the pipe-through floor (keep-alive 60 s), the gateway (its inbound
// keep-alive, 65 s since decision 0233's work) and, as a control that shows
// the race the bench looks for, the pipe with Node's default 5 s.
// Usage: node bench/gateway/keepalive-run.mjs [--streams 50] [--gaps 4000,5000,6000]
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { startChild, stopChild } from './bench-client.mjs';
import { bundleGateway } from './gateway-bundle.mjs';

const { values: args } = parseArgs({ options: { streams: { type: 'string', default: '50' }, gaps: { type: 'string', default: '4000,5000,6000' } } });
const streams = Number(args.streams);
const gaps = args.gaps.split(',').map(Number);
const root = fileURLToPath(new URL('../../', import.meta.url));
const workDir = await mkdtemp(join(tmpdir(), 'tg-keepalive-'));
const upstream = await startChild([join(root, 'bench/gateway/upstream-server.mjs'), '20', '2']);
const kinds = [
  { name: 'pipe (keep-alive 60 s)', args: ['pipe'] },
  { name: 'gateway', args: ['gateway', await bundleGateway(root, '.', workDir, 0)] },
  { name: 'control: pipe, Node default 5 s', args: ['pipe-node-default'] },
];
const body = JSON.stringify({ model: 'bench', stream: true, messages: [{ role: 'user', content: 'hello' }] });

/** One stream; resolves with its outcome instead of rejecting, so a wave counts its failures. */
function attempt(agent, port) {
  return new Promise((resolve) => {
    const request = httpRequest(
      { host: '127.0.0.1', port, method: 'POST', path: '/v1/chat/completions', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: 'Bearer sk-bench' } },
      (response) => {
        response.resume();
        response.on('end', () => resolve({ ok: response.statusCode === 200, reused: request.reusedSocket }));
        response.on('error', (error) => resolve({ ok: false, error, reused: request.reusedSocket }));
      },
    );
    request.on('error', (error) => resolve({ ok: false, error, reused: request.reusedSocket }));
    request.end(body);
  });
}

/** The waves of one target: the opening one, then one after each idle gap. */
async function runTarget(kind) {
  const { child, info } = await startChild([join(root, 'bench/gateway/one-proxy-server.mjs'), kind.args[0], String(upstream.info.port), ...kind.args.slice(1)]);
  const agent = new Agent({ keepAlive: true, maxSockets: streams });
  const waves = [];
  for (const gap of [0, ...gaps]) {
    await sleep(gap);
    const outcomes = await Promise.all(Array.from({ length: streams }, () => attempt(agent, info.port)));
    const failed = outcomes.filter((outcome) => !outcome.ok);
    const resets = failed.filter((outcome) => outcome.error?.code === 'ECONNRESET' || /socket hang up/.test(outcome.error?.message ?? ''));
    waves.push({ gap, reused: outcomes.filter((outcome) => outcome.reused).length, resets: resets.length, otherFailures: failed.length - resets.length });
  }
  agent.destroy();
  await stopChild(child);
  return waves;
}

const started = performance.now();
const results = await Promise.all(kinds.map(runTarget));
console.log(`node ${process.version}, ${streams} streams per wave on a ${streams}-socket keep-alive pool, idle gaps ${gaps.join(', ')} ms; ${((performance.now() - started) / 1000).toFixed(1)} s`);
console.log('| target | idle gap s | streams on a reused socket | ECONNRESET / socket hang up | other failures |');
console.log('| --- | ---: | ---: | ---: | ---: |');
for (const [index, kind] of kinds.entries()) {
  for (const wave of results[index]) console.log(`| ${kind.name} | ${wave.gap === 0 ? 'first wave' : wave.gap / 1000} | ${wave.reused} | ${wave.resets} | ${wave.otherFailures} |`);
}
await stopChild(upstream.child);
await rm(workDir, { recursive: true, force: true });
