/** `npm test`'s Chromium step: announced before an install, skipped on request, and the browser test says why it did not run. */
import { describe, expect, it } from 'vitest';
import { browserSkipReason } from '../../packages/stats/test/browser-skip-reason.js';
import { planChromium } from '../../scripts/ensure-chromium.mjs';

const facts = { env: {}, hasChromium: false, isRoot: true, hasApt: true };

describe('scripts/ensure-chromium.mjs', () => {
  it('announces an install before it starts, with how to skip it', () => {
    const plan = planChromium(facts);
    expect(plan.action).toBe('install');
    expect(plan.message).toMatch(/installing Debian's chromium with apt-get .* set TURNGUARD_SKIP_BROWSER=1 to skip/);
  });

  it('TURNGUARD_SKIP_BROWSER=1 installs nothing and says the browser test is skipped', () => {
    const plan = planChromium({ ...facts, env: { TURNGUARD_SKIP_BROWSER: '1' } });
    expect(plan).toEqual({ action: 'skip', message: expect.stringContaining('the dashboard browser test will be skipped') });
    expect(planChromium({ ...facts, hasChromium: true, env: { TURNGUARD_SKIP_BROWSER: '1' } }).action).toBe('skip');
  });

  it('does nothing when Chromium is there, and cannot install without root or apt-get', () => {
    expect(planChromium({ ...facts, hasChromium: true })).toEqual({ action: 'present', message: undefined });
    expect(planChromium({ ...facts, isRoot: false }).action).toBe('cannot');
  });
});

describe('the dashboard browser test', () => {
  it('is skipped under TURNGUARD_SKIP_BROWSER=1 even with Chromium present, and names the reason', () => {
    expect(browserSkipReason({ TURNGUARD_SKIP_BROWSER: '1' }, true, '/usr/bin/chromium')).toBe('TURNGUARD_SKIP_BROWSER=1');
    expect(browserSkipReason({}, false, '/usr/bin/chromium')).toBe('/usr/bin/chromium not found (apt-get install chromium)');
    expect(browserSkipReason({}, true, '/usr/bin/chromium')).toBeUndefined();
  });
});
