/** `npm run demo`: the install and build stay quiet unless one fails; then the demo's own output (R10.1). */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { DEMO_RUN, DEMO_STEPS, runDemo, type DemoStep } from '../../scripts/demo.mjs';

function fakeRun(failing?: string) {
  const calls: Array<{ step: DemoStep; quiet: boolean }> = [];
  return {
    calls,
    run(step: DemoStep, { quiet }: { quiet: boolean }) {
      calls.push({ step, quiet });
      return failing !== undefined && step.title === failing ? { status: 3, output: 'ERR! build exploded\n' } : { status: 0, output: `${step.title ?? 'demo'} output, 170 lines\n` };
    },
  };
}

describe('scripts/demo.mjs', () => {
  it('npm run demo is this script', () => {
    expect(JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).scripts.demo).toBe('node scripts/demo.mjs');
  });

  it('installs and builds quietly, then runs the demo with its output shown', () => {
    const fake = fakeRun();
    let written = '';
    expect(runDemo({ run: fake.run, write: (text) => void (written += text) })).toBe(0);
    expect(fake.calls.map(({ step, quiet }) => [step.title, quiet])).toEqual([['install', true], ['build', true], [undefined, false]]);
    expect(fake.calls[2]!.step).toBe(DEMO_RUN);
    expect(written).toBe('turnguard demo: installing and building (quietly; the output shows only if a step fails)…\n');
  });

  it('a failing build prints its whole output and the failing step, and runs no demo', () => {
    const fake = fakeRun('build');
    let written = '';
    expect(runDemo({ run: fake.run, write: (text) => void (written += text) })).toBe(3);
    expect(written).toContain('ERR! build exploded');
    expect(written).toContain(`the build step failed (exit 3): ${[DEMO_STEPS[1]!.command, ...DEMO_STEPS[1]!.args].join(' ')}`);
    expect(fake.calls).toHaveLength(2);
  });
});
