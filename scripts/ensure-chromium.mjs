// The stats dashboard is tested in a real headless Chromium. On a fresh Debian
// machine it is installed from Debian's packages (the only browser source this
// workplace reaches), announced before it starts; TURNGUARD_SKIP_BROWSER=1
// skips the install and the browser test (which then says so); elsewhere the
// browser test skips with a reason instead of failing.
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const CHROMIUM = '/usr/bin/chromium';
const SKIP_HINT = 'set TURNGUARD_SKIP_BROWSER=1 to skip the install and the dashboard browser test';

/**
 * What to do about Chromium, decided from the facts alone (so it is testable):
 * `skip` (asked to), `present`, `install` (root with apt-get) or `cannot`.
 */
export function planChromium({ env, hasChromium, isRoot, hasApt }) {
  if (env.TURNGUARD_SKIP_BROWSER === '1') {
    return { action: 'skip', message: '[ensure-chromium] TURNGUARD_SKIP_BROWSER=1: no Chromium install; the dashboard browser test will be skipped.' };
  }
  if (hasChromium) return { action: 'present', message: undefined };
  if (!isRoot || !hasApt) {
    return { action: 'cannot', message: `[ensure-chromium] ${CHROMIUM} not found and apt-get cannot install it here; the dashboard browser test will be skipped.` };
  }
  return {
    action: 'install',
    message: `[ensure-chromium] ${CHROMIUM} not found: installing Debian's chromium with apt-get (a few hundred MB) for the dashboard browser test; ${SKIP_HINT}.`,
  };
}

function main() {
  const plan = planChromium({
    env: process.env,
    hasChromium: existsSync(CHROMIUM),
    isRoot: typeof process.getuid === 'function' && process.getuid() === 0,
    hasApt: existsSync('/usr/bin/apt-get'),
  });
  if (plan.message !== undefined) console.log(plan.message);
  if (plan.action !== 'install') return;
  try {
    execSync('apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium', { stdio: ['ignore', 'ignore', 'inherit'] });
    console.log('[ensure-chromium] chromium installed.');
  } catch {
    console.log('[ensure-chromium] install failed; the dashboard browser test will be skipped.');
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
