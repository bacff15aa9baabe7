// R11's fault catalogue (apps/gateway/src/failover-*.e2e.test.ts) with the gateway's DEFAULT limits
// and budget (decisions 0400, 0406) instead of the short ones `npm test` uses: what a user gets out
// of the box. The rows wait out real limits (a silent upstream is cut at 60 s, a slow first token at
// 120 s), side by side, so one run takes about two and a half minutes. Not part of `npm test`.
// Usage: npm run test:failover-defaults
import { spawnSync } from 'node:child_process';

const started = performance.now();
const run = spawnSync(
  'npx',
  ['vitest', 'run', '--maxConcurrency=200', '--reporter=verbose', 'apps/gateway/src/failover-catalogue.e2e.test.ts', 'apps/gateway/src/failover-scenarios.e2e.test.ts'],
  { stdio: 'inherit', env: { ...process.env, TURNGUARD_FAILOVER_LIMITS: 'defaults' } },
);
console.log(`failover catalogue with the gateway's defaults: ${run.status === 0 ? 'passed' : 'FAILED'} in ${((performance.now() - started) / 1000).toFixed(0)} s`);
process.exit(run.status ?? 1);
