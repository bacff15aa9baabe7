// The raw relay with ONE long SSE record (a huge delta, a base64 image) — time through
// the gateway and its peak RSS growth, for records of 1, 8 and 32 MB (a fresh gateway process per
// record, so each peak is its own). Acceptance: time(32 MB) ≤ 64 × time(1 MB) in the same run, and
// peak RSS growth ≤ 4 × the record + 64 MB. BENCH_BASELINE_REF=<git ref> adds the gateway at that
// ref side by side (its relay may be quadratic: BENCH_RECORD_MB trims the sizes). BENCH_STREAM=false
// asks for a non-streaming answer: the same record then goes through the JSON path and its capture
// of the upstream's object (decision 0235).
// Usage: node bench/gateway/relay-record.mjs   (BENCH_RECORD_MB="1 8 32" by default)
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { Agent, createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleFromSource } from '../../scripts/bundle-from-source.mjs';
import { startChild, streamOnce } from './bench-client.mjs';
import { extractSourceTree } from './source-trees.mjs';

const sizesMb = (process.env.BENCH_RECORD_MB ?? '1 8 32').split(/\s+/).filter(Boolean).map(Number);
const root = fileURLToPath(new URL('../../', import.meta.url));
const workDir = await mkdtemp(join(tmpdir(), 'tg-relay-record-'));
const MB = 1024 * 1024;
// BENCH_GATEWAY_NODE_ARGS="--trace-gc" (or a heap flag) goes to every gateway child.
const gatewayNodeArgs = (process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(' ').filter(Boolean);

const bundle = (sourceRoot, outDir) =>
  bundleFromSource({ entryName: 'relay-record-gateway', entryFile: join(sourceRoot, 'bench/gateway/relay-record-gateway.mjs'), outDir, sourceRoot });
const trees = { '.': await bundle(root, join(workDir, 'current')) };
const baselineRef = process.env.BENCH_BASELINE_REF;
if (baselineRef !== undefined) {
  const tree = await extractSourceTree(root, baselineRef, join(workDir, 'baseline'));
  await copyFile(join(root, 'bench/gateway/relay-record-gateway.mjs'), join(tree, 'bench/gateway/relay-record-gateway.mjs'));
  trees[baselineRef] = await bundle(tree, join(workDir, 'baseline-out'));
}

/** One Chat stream whose first delta is a single record of `sizeMb` MB, written in 64 KiB pieces. */
function recordStream(sizeMb) {
  const chunk = (fields) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'bench', ...fields })}\n\n`;
  const head = chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
  const big = chunk({ choices: [{ index: 0, delta: { content: 'x'.repeat(sizeMb * MB) }, finish_reason: null }] });
  const tail = `${chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}${chunk({ choices: [], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } })}data: [DONE]\n\n`;
  return Buffer.from(head + big + tail);
}

let body = Buffer.alloc(0);
const upstream = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    let at = 0;
    const next = () => {
      while (at < body.length) {
        const piece = body.subarray(at, at + 65_536);
        at += piece.length;
        if (!response.write(piece)) return void response.once('drain', next);
      }
      response.end();
    };
    next();
  });
});
await new Promise((resolve) => upstream.listen(0, '127.0.0.1', resolve));
const upstreamPort = upstream.address().port;
const stream = process.env.BENCH_STREAM !== 'false';
const requestBody = JSON.stringify({ model: 'bench', stream, messages: [{ role: 'user', content: 'hello' }] });

const rows = [];
for (const sizeMb of sizesMb) {
  body = recordStream(sizeMb);
  for (const [name, file] of Object.entries(trees)) {
    const { child, info } = await startChild([...gatewayNodeArgs, file, String(upstreamPort)]);
    const agent = new Agent({ keepAlive: true });
    const { totalMs } = await streamOnce(agent, info.port, requestBody);
    const peak = await new Promise((resolve) => {
      child.once('message', (message) => resolve(message.peakGrowthBytes));
      child.send('peak');
    });
    agent.destroy();
    child.kill();
    rows.push({ name, sizeMb, totalMs, peakMb: peak / MB });
  }
}

console.log(`node ${process.version}, one record per ${stream ? 'stream' : 'non-streaming (JSON) answer'}, 64 KiB upstream writes, a fresh gateway per row`);
console.log('| tree | record | time (ms) | × the 1 MB time | peak RSS growth (MB) | RSS bound 4× + 64 (MB) |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
for (const row of rows) {
  const base = rows.find((other) => other.name === row.name && other.sizeMb === 1);
  const ratio = base === undefined ? '' : `${(row.totalMs / base.totalMs).toFixed(1)}×`;
  console.log(`| ${row.name} | ${row.sizeMb} MB | ${row.totalMs.toFixed(0)} | ${ratio} | ${row.peakMb.toFixed(0)} | ${4 * row.sizeMb + 64} |`);
}
const current = rows.filter((row) => row.name === '.');
const one = current.find((row) => row.sizeMb === 1);
const largest = current.find((row) => row.sizeMb === 32);
const timeOk = one === undefined || largest === undefined || largest.totalMs <= 64 * one.totalMs;
const rssOk = current.every((row) => row.peakMb <= 4 * row.sizeMb + 64);
console.log(`acceptance (working tree): time 32 MB ≤ 64 × 1 MB: ${timeOk ? 'PASS' : 'FAIL'}; peak RSS growth ≤ 4 × record + 64 MB: ${rssOk ? 'PASS' : 'FAIL'}`);
upstream.close();
await rm(workDir, { recursive: true, force: true });
process.exitCode = timeOk && rssOk ? 0 : 1;
