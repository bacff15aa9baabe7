// bench/decode/reasoning-memory.mjs: what a segment's kept reasoning (the
// recovery checkpoint, R4.3) holds per character while its stream is open:
// core's ReasoningText (deltas joined every 64) beside a string built with
// `+=` per delta. 100 texts of 6 400 eight-character deltas each are kept,
// then the heap is measured after a full GC. A measurement, not a test: the
// figures follow the engine (Node 20: ≈ 1 byte per character joined, ≈ 7
// for `+=` of word-sized deltas, which keeps every delta and a link per delta).
//
//   node bench/decode/reasoning-memory.mjs
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'tsup';

const root = fileURLToPath(new URL('../../', import.meta.url));
const workDir = await mkdtemp(join(tmpdir(), 'tg-reasoning-memory-'));
try {
  await build({
    config: false,
    entry: { 'reasoning-text': join(root, 'packages/core/src/stream/reasoning-text.ts') },
    outDir: workDir,
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    dts: false,
    silent: true,
  });
  const script = join(workDir, 'measure.mjs');
  await writeFile(
    script,
    `import { readdirSync } from 'node:fs';
const file = readdirSync(${JSON.stringify(workDir)}).find((name) => name.startsWith('reasoning-text.'));
const { ReasoningText } = await import(${JSON.stringify(workDir + '/')} + file);
const DELTAS = 6_400, KEPT = 100;
const word = (index) => \`w\${(index * 7919).toString(36)}       \`.slice(0, 8);
function measure(make) {
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept = [];
  for (let text = 0; text < KEPT; text += 1) kept.push(make());
  gc();
  return ((process.memoryUsage().heapUsed - before) / (KEPT * DELTAS * 8)).toFixed(2) + (kept.length === KEPT ? '' : '?');
}
const joined = measure(() => { const reasoning = new ReasoningText(true, 1e9); for (let i = 0; i < DELTAS; i += 1) reasoning.add(word(i)); return reasoning; });
const appended = measure(() => { let text = ''; for (let i = 0; i < DELTAS; i += 1) text += word(i); return { text }; });
console.log('| kept as | bytes per character |\\n| --- | ---: |\\n| ReasoningText (joined every 64 deltas) | ' + joined + ' |\\n| \`+=\` per delta | ' + appended + ' |');
`,
  );
  const run = spawnSync(process.execPath, ['--expose-gc', script], { encoding: 'utf8' });
  process.stdout.write(`Node ${process.version}. Command: \`node bench/decode/reasoning-memory.mjs\`.\n\n${run.stdout}${run.stderr}`);
} finally {
  await rm(workDir, { recursive: true, force: true });
}
