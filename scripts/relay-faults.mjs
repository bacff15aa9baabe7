// The relay's fault-schedule property test (apps/gateway/src/relay-fault-schedules.e2e.test.ts) run
// long: thousands of random schedules per seed, outside `npm test`. Prints one summary line per seed
// (schedules by kind, recoveries, samples with no response head, violations) and fails on the first
// violation, with its schedule. R8.13, R8.12, R8.7, R1.2, R6.1.
// Usage: npm run test:faults -- [--schedules 5000] [--seeds 1,2] [--shrink]
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { schedules: { type: 'string', default: '5000' }, seeds: { type: 'string', default: '1,2' }, shrink: { type: 'boolean', default: false } } });
let failed = false;
for (const seed of values.seeds.split(',')) {
  const started = performance.now();
  const run = spawnSync('npx', ['vitest', 'run', 'apps/gateway/src/relay-fault-schedules.e2e.test.ts'], {
    encoding: 'utf8',
    env: { ...process.env, TURNGUARD_FAULT_SCHEDULES: values.schedules, TURNGUARD_FAULT_SEED: seed, TURNGUARD_FAULT_REPORT: '1', TURNGUARD_FAULT_SHRINK: values.shrink ? '1' : '0' },
  });
  const output = `${run.stdout}\n${run.stderr}`;
  const summary = output.split('\n').find((line) => line.includes('relay fault schedules: {'));
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  if (run.status === 0 && summary !== undefined) console.log(`${summary.slice(summary.indexOf('relay fault schedules:'))} (${seconds} s)`);
  else {
    failed = true;
    console.log(`seed ${seed}: FAILED after ${seconds} s`);
    console.log(output.split('\n').filter((line) => /Counterexample|Property failed|\+ |Error/.test(line)).slice(0, 40).join('\n'));
  }
}
process.exit(failed ? 1 : 0);
