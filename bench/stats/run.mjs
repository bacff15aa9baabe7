// Measures @turnguard/stats store throughput (records/s) with 1 and 8 writer
// processes on one stats.json (R6.5: lock → read → apply → atomic write).
// Usage: node bench/stats/run.mjs [recordsPerWriter=1000]
// Each writer queues one physical sample + one logical turn per step and
// yields every 10 steps, so records coalesce the way a busy gateway's do.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleFromSource } from '../../scripts/bundle-from-source.mjs';

const steps = Number(process.argv[2] ?? 1000);
const root = fileURLToPath(new URL('../../', import.meta.url));
const workDir = await mkdtemp(join(tmpdir(), 'tg-stats-bench-'));

// Bundle the store from source (same worker the tests use); no dist/ needed.
const worker = await bundleFromSource({
  entryName: 'stats-writer',
  entryFile: join(root, 'packages/stats/test/workers/stats-writer.ts'),
  outDir: workDir,
  sourceRoot: root,
});

function runWriter(path, id) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [worker, path, id, String(steps), '5000'], { stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`writer ${id} exited ${code}`))));
  });
}

const rows = [];
for (const writers of [1, 8]) {
  const path = join(workDir, `stats-${writers}.json`);
  const started = performance.now();
  await Promise.all(Array.from({ length: writers }, (_, index) => runWriter(path, String(index + 1))));
  const seconds = (performance.now() - started) / 1000;
  const file = JSON.parse(await readFile(path, 'utf8'));
  const records = file.lifetime.requests + file.logical.turns;
  if (records !== writers * steps * 2) throw new Error(`lost records: ${records} of ${writers * steps * 2}`);
  rows.push({ writers, records, seconds: seconds.toFixed(2), recordsPerSecond: Math.round(records / seconds) });
}
await rm(workDir, { recursive: true, force: true });

console.log(`node ${process.version}, ${cpus().length} CPUs, ${steps} steps per writer (1 sample + 1 turn each), retention 5000 samples`);
console.log('| writer processes | records | seconds (incl. process start) | records/s |');
console.log('| ---: | ---: | ---: | ---: |');
for (const row of rows) console.log(`| ${row.writers} | ${row.records} | ${row.seconds} | ${row.recordsPerSecond} |`);
