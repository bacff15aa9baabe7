// runTurn's own overhead, in process (decision 0320): a fake fetch answers
// every turn with a prebuilt Chat SSE body of `chunks` deltas split into
// `reads` network reads; no sockets, so what is measured is runTurn + the Chat
// decoder. Prints CPU wall per turn, median time to the first event and to the
// end. Usage: node bench/gateway/turn-overhead.mjs [chunks=100] [reads=4] [turns=5000]
// BENCH_BASELINE_REF=<git ref> also runs core + adapter-chat as they are at that ref.
// BENCH_LIGHT_BODY=1 answers with a plain ByteStream and head, as the gateway's transport does, instead
// of a WHATWG Response (whose construction is ≈ 20 µs of the figure otherwise).
// BENCH_PROFILE_DIR=<dir>: each run's process writes a CPU profile (50 µs samples) there, beside
// its bundle: `node bench/gateway/profile-by-source.mjs <dir>/<variant>/CPU…cpuprofile <dir>/<variant>/bundle.js <turns>`.
// BENCH_TURN_METRICS=1 gives runTurn the gateway's stats sink (its metrics, no store), as
// `turnguard serve` does, so the per-turn cost of the metrics is in the figure.
// BENCH_TURN_CHAIN=1 gives runTurn what the gateway gives every turn since R11: the interactive
// retry budget, decision 0400's time limits, one CircuitBreakers, no fallbacks, and a record
// observer (a ref without them ignores the options and runs R1's loop).
import { spawnSync } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'tsup';
import { extractSourceTree } from './source-trees.mjs';

const [chunks = '100', reads = '4', turns = '5000'] = process.argv.slice(2);
const root = fileURLToPath(new URL('../../', import.meta.url));
const workDir = await mkdtemp(join(tmpdir(), 'tg-turn-bench-'));
const packages = ['core', 'adapter-chat'];

const withMetrics = process.env.BENCH_TURN_METRICS === '1';
const withChain = process.env.BENCH_TURN_CHAIN === '1';
const entry = `
import { runTurn } from '@turnguard/core';
import { chatAdapter } from '@turnguard/adapter-chat';
${withMetrics ? "import { createMeteredSink, GatewayMetrics } from '@turnguard/gateway-metrics';\nconst stats = createMeteredSink(new GatewayMetrics(), undefined);" : 'const stats = undefined;'}
${withChain ? "import { CircuitBreakers, INTERACTIVE_RETRY_BUDGET, UPSTREAM_TIME_LIMIT_DEFAULTS } from '@turnguard/core';\nconst breakers = new CircuitBreakers();\nconst timeLimits = { ...UPSTREAM_TIME_LIMIT_DEFAULTS };\nconst drop = (process.env.BENCH_TURN_CHAIN_DROP ?? '').split(',');\nconst chain = () => { const options = { upstream: 'chat', fallbacks: [], retryBudget: INTERACTIVE_RETRY_BUDGET, timeLimits, circuitBreakers: breakers, observeSseRecords: () => ({ onRecord() {} }) }; for (const key of drop) delete options[key]; return options; };" : 'const chain = () => ({});'}
const [chunks, reads, turns] = process.argv.slice(2).map(Number);
const record = (fields) => 'data: ' + JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'b', ...fields }) + '\\n\\n';
let text = record({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
for (let i = 0; i < chunks; i++) text += record({ choices: [{ index: 0, delta: { content: 'w' + i + ' ' }, finish_reason: null }] });
text += record({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }) + record({ choices: [], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }) + 'data: [DONE]\\n\\n';
const bytes = new TextEncoder().encode(text);
const parts = [];
const step = Math.ceil(bytes.length / reads);
for (let i = 0; i < bytes.length; i += step) parts.push(bytes.subarray(i, i + step));
const lightBody = ${process.env.BENCH_LIGHT_BODY === '1'};
const fetch = async () => {
  let next = 0;
  if (lightBody) {
    // What the gateway's transport hands runTurn: a ByteStream and a head, no WHATWG Response (decision 0320).
    const reader = { read: async () => (next < parts.length ? { done: false, value: parts[next++] } : { done: true, value: undefined }), cancel: async () => undefined, releaseLock: () => undefined };
    const body = { locked: false, getReader: () => reader, cancel: async () => undefined };
    return { ok: true, status: 200, headers: { get: (name) => (name === 'content-type' ? 'text/event-stream' : null) }, body, text: async () => '' };
  }
  const body = new ReadableStream({ pull(controller) { if (next < parts.length) controller.enqueue(parts[next++]); else controller.close(); } }, { highWaterMark: 0 });
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
};
const request = { model: 'b', stream: true, messages: [{ role: 'user', content: 'hi' }] };
async function runOne() {
  const started = performance.now();
  let first = 0;
  let count = 0;
  for await (const _event of runTurn({ adapter: chatAdapter, request, target: { baseUrl: 'http://bench.invalid/v1' }, fetch, stats, ...chain() })) if (count++ === 0) first = performance.now() - started;
  return [first, performance.now() - started];
}
for (let i = 0; i < 500; i++) await runOne();
const firsts = [];
const totals = [];
const started = performance.now();
for (let i = 0; i < turns; i++) { const [first, total] = await runOne(); firsts.push(first); totals.push(total); }
const perTurn = (performance.now() - started) / turns;
const median = (values) => values.sort((a, b) => a - b)[values.length >> 1];
console.log(JSON.stringify({ perTurnUs: perTurn * 1000, firstEventUs: median(firsts) * 1000, totalUs: median(totals) * 1000 }));
`;

async function bundle(sourceRoot, outDir) {
  await mkdir(outDir, { recursive: true });
  const source = join(workDir, `${outDir.split('/').pop()}-entry.mjs`);
  await writeFile(source, entry);
  await build({
    config: false, entry: { 'turn-overhead': source }, outDir, format: ['esm'], platform: 'node', target: 'node20', dts: false, silent: true, noExternal: [/.*/],
    esbuildOptions(options) {
      options.alias = Object.fromEntries(packages.map((name) => [`@turnguard/${name}`, join(sourceRoot, `packages/${name}/src/index.ts`)]));
      options.alias['@turnguard/gateway-metrics'] = join(sourceRoot, 'apps/gateway/src/metrics/gateway-metrics.ts');
      // prom-client is CommonJS and requires Node's built-ins: give the ESM bundle a `require`.
      if (withMetrics) options.banner = { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" };
    },
  });
  // tsup names the ESM output .js or .mjs depending on the nearest package.json.
  const output = (await readdir(outDir)).find((name) => name.startsWith('turn-overhead.') && !name.endsWith('.map'));
  return join(outDir, output);
}

const variants = [['working tree', await bundle(root, join(workDir, 'current'))]];
const ref = process.env.BENCH_BASELINE_REF;
if (ref !== undefined) variants.push([`@ ${ref}`, await bundle(await extractSourceTree(root, ref, join(workDir, 'baseline')), join(workDir, 'baseline-out'))]);
const results = Object.fromEntries(variants.map(([name]) => [name, []]));
// Interleaved, 5 processes each: one cold JIT per sample, drift hits both alike.
for (let run = 0; run < 5; run += 1) {
  for (const [name, file] of variants) {
    const profileDir = process.env.BENCH_PROFILE_DIR === undefined ? undefined : join(process.env.BENCH_PROFILE_DIR, name.replace(/\W+/g, '-'));
    if (profileDir !== undefined) await mkdir(profileDir, { recursive: true }).then(() => copyFile(file, join(profileDir, 'bundle.js')));
    const profile = profileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-interval=50', `--cpu-prof-dir=${profileDir}`];
    const child = spawnSync(process.execPath, [...profile, file, chunks, reads, turns], { encoding: 'utf8' });
    if (child.status !== 0) throw new Error(child.stderr);
    results[name].push(JSON.parse(child.stdout.trim()));
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
console.log(`node ${process.version}, ${chunks} chunks in ${reads} reads, ${turns} turns × 5 runs (medians)${withMetrics ? ", stats: the gateway's metered sink (metrics only)" : ''}${process.env.BENCH_LIGHT_BODY === '1' ? ', light body' : ''}`);
console.log('| runTurn | CPU wall per turn (µs) | per chunk (µs) | first event p50 (µs) | turn p50 (µs) |');
console.log('| --- | ---: | ---: | ---: | ---: |');
for (const [name] of variants) {
  const pick = (field) => median(results[name].map((sample) => sample[field]));
  console.log(`| ${name} | ${pick('perTurnUs').toFixed(0)} | ${(pick('perTurnUs') / Number(chunks)).toFixed(2)} | ${pick('firstEventUs').toFixed(0)} | ${pick('totalUs').toFixed(0)} |`);
}
await rm(workDir, { recursive: true, force: true });
