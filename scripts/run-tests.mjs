// Runs the whole vitest suite once and closes with one plain summary line
// ("tests: N passed, N failed, N skipped") that CI can read, because
// vitest's own closing lines are not in a format CI recognises.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';

mkdirSync('.test-results', { recursive: true });
const reportPath = '.test-results/vitest.json';
// A report left by an earlier run must never be read as this run's.
rmSync(reportPath, { force: true });
const run = spawnSync(
  'vitest',
  ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${reportPath}`, ...process.argv.slice(2)],
  { stdio: 'inherit', shell: process.platform === 'win32' },
);

let passed = 0;
let failed = 0;
let skipped = 0;
try {
  const report = JSON.parse(readFileSync(reportPath, 'utf8'));
  passed = report.numPassedTests;
  failed = report.numFailedTests + (report.numFailedTestSuites ?? 0);
  skipped = report.numPendingTests + report.numTodoTests;
} catch {
  failed = Math.max(failed, 1);
}
const code = run.status === 0 && failed === 0 && passed > 0 ? 0 : 1;
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(code);
