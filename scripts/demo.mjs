// `npm run demo`: installs and builds what the probe needs, quietly, then runs
// every scenario on the embedded mock. The install and build print only when a
// step fails (their whole output, then the exit code), so the demo's own
// output starts at its first line.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const PNPM = ['-y', 'pnpm@12.4.2'];

/** The quiet steps, then the demo itself. */
export const DEMO_STEPS = [
  { title: 'install', command: 'npx', args: [...PNPM, 'install', '--frozen-lockfile'] },
  { title: 'build', command: 'npx', args: [...PNPM, 'turbo', 'run', 'build', '--filter=@turnguard/probe...', '--output-logs=errors-only'] },
];
export const DEMO_RUN = { command: process.execPath, args: ['apps/probe/dist/cli.js', '--all', '--out', '.demo/probe-results', '--stats-file', '.demo/stats.json'] };

/**
 * Runs the quiet steps with their output held back, then the demo with its
 * output shown. `run(step, { quiet })` returns `{ status, output }`.
 * Resolves to the exit code.
 */
export function runDemo({ run, write }) {
  write('turnguard demo: installing and building (quietly; the output shows only if a step fails)…\n');
  for (const step of DEMO_STEPS) {
    const { status, output } = run(step, { quiet: true });
    if (status !== 0) {
      write(`${output}\nturnguard demo: the ${step.title} step failed (exit ${status}): ${[step.command, ...step.args].join(' ')}\n`);
      return status ?? 1;
    }
  }
  return run(DEMO_RUN, { quiet: false }).status ?? 1;
}

function runStep({ command, args }, { quiet }) {
  const result = spawnSync(command, args, {
    stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    encoding: 'utf8',
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: result.error ? 1 : result.status, output: quiet ? `${result.stdout ?? ''}${result.stderr ?? ''}${result.error?.message ?? ''}` : '' };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.exitCode = runDemo({ run: runStep, write: (text) => process.stdout.write(text) });
}
