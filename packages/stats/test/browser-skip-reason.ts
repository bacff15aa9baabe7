/**
 * Why the dashboard browser test does not run here, or `undefined` when it
 * does: skipped on request (`TURNGUARD_SKIP_BROWSER=1`, what `npm test`
 * announces) or for want of a Chromium (scripts/ensure-chromium.mjs).
 */
export function browserSkipReason(env: Record<string, string | undefined>, hasChromium: boolean, chromiumPath: string): string | undefined {
  if (env.TURNGUARD_SKIP_BROWSER === '1') return 'TURNGUARD_SKIP_BROWSER=1';
  if (!hasChromium) return `${chromiumPath} not found (apt-get install chromium)`;
  return undefined;
}
