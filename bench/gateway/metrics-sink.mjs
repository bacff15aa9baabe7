// The gateway's stats sink alone (R12.2, decision 0380): CPU per logical turn of
// `createMeteredSink(new GatewayMetrics())` — one physical sample with two known
// token counts and one turn record, what a plain turn costs the metrics —
// for the working tree and, with BENCH_BASELINE_REF=<ref>, the tree at that ref,
// in one process, interleaved rounds, medians.
// Usage: node bench/gateway/metrics-sink.mjs [turnsPerRound=200000] [rounds=9]
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'tsup';
import { extractSourceTree } from './source-trees.mjs';

const [turns = '200000', rounds = '9'] = process.argv.slice(2);
const root = fileURLToPath(new URL('../../', import.meta.url));
const workDir = await mkdtemp(join(tmpdir(), 'tg-metrics-sink-'));
const trees = [['working tree', root]];
const ref = process.env.BENCH_BASELINE_REF;
if (ref !== undefined) trees.push([`@ ${ref}`, await extractSourceTree(root, ref, join(workDir, 'baseline'))]);

const entry = `
${trees.map(([, tree], index) => `import * as tree${index} from ${JSON.stringify(join(tree, 'apps/gateway/src/metrics/gateway-metrics.ts'))};`).join('\n')}
const names = ${JSON.stringify(trees.map(([name]) => name))};
const sinks = [${trees.map((_, index) => `tree${index}.createMeteredSink(new tree${index}.GatewayMetrics(), undefined)`).join(', ')}];
const sample = { time: 0, protocol: 'chat', model: 'bench', ok: true, errorCode: undefined, truncated: false, durationMs: 10, ttftMs: 1, decodeWindowMs: 5, usage: { inputTokens: 12, outputTokens: 7 }, noUsage: false, recoveryId: undefined, attempt: 0, recoveryAttempt: false, recoveryScheduled: false, recovered: false, warnings: [] };
const turn = { time: 0, protocol: 'chat', model: 'bench', outcome: 'ok', errorCode: undefined, recovered: false, recoveryId: undefined, physicalRequests: 1, durationMs: 1200, usage: { inputTokens: 12, outputTokens: 7 }, usageComplete: true };
const [turns, rounds] = process.argv.slice(2).map(Number);
const perTurn = sinks.map(() => []);
for (let round = 0; round <= rounds; round += 1) {
  sinks.forEach((sink, index) => {
    const started = process.cpuUsage();
    for (let i = 0; i < turns; i += 1) { sink.recordUsage(sample); sink.recordTurn(turn); }
    const used = process.cpuUsage(started);
    if (round > 0) perTurn[index].push((used.user + used.system) / turns);
  });
}
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
console.log('| stats sink | CPU µs per turn (1 sample + 1 turn), median | range |');
console.log('| --- | ---: | --- |');
perTurn.forEach((values, index) => console.log('| ' + names[index] + ' | ' + median(values).toFixed(2) + ' | ' + Math.min(...values).toFixed(2) + '–' + Math.max(...values).toFixed(2) + ' |'));
`;
await writeFile(join(workDir, 'entry.ts'), entry);
await build({
  config: false, entry: { 'metrics-sink': join(workDir, 'entry.ts') }, outDir: join(workDir, 'out'), format: ['cjs'], platform: 'node', target: 'node20', dts: false, silent: true, noExternal: [/.*/],
  esbuildOptions(options) {
    options.alias = { '@turnguard/core': join(root, 'packages/core/src/index.ts') };
    options.nodePaths = [join(root, 'apps/gateway/node_modules'), join(root, 'node_modules')];
  },
});
const output = (await readdir(join(workDir, 'out'))).find((name) => name.startsWith('metrics-sink.') && !name.endsWith('.map'));
const { spawnSync } = await import('node:child_process');
const child = spawnSync(process.execPath, [join(workDir, 'out', output), turns, rounds], { encoding: 'utf8' });
if (child.status !== 0) throw new Error(child.stderr);
console.log(`node ${process.version}, ${turns} turns per round, ${rounds} rounds after one warm-up round, one process`);
process.stdout.write(child.stdout);
await rm(workDir, { recursive: true, force: true });
