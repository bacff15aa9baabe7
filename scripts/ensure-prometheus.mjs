// A real Prometheus scrapes a running gateway in the metrics test (R12.2). On a
// fresh Debian machine it is installed from Debian's packages (the only source
// this workplace reaches), as Chromium is for the dashboard; elsewhere the
// Prometheus test skips with a reason instead of failing.
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const PROMETHEUS = '/usr/bin/prometheus';
if (existsSync(PROMETHEUS) || process.env.TURNGUARD_SKIP_PROMETHEUS === '1') process.exit(0);

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const hasApt = existsSync('/usr/bin/apt-get');
if (!isRoot || !hasApt) {
  console.log('[ensure-prometheus] /usr/bin/prometheus not found and cannot apt-get install it here; the Prometheus scrape test will be skipped.');
  process.exit(0);
}
console.log('[ensure-prometheus] installing Debian prometheus for the Prometheus scrape test…');
try {
  // The server only: no node exporter, no service started (the test runs its own, on loopback).
  execSync('apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus', { stdio: ['ignore', 'ignore', 'inherit'] });
} catch {
  console.log('[ensure-prometheus] install failed; the Prometheus scrape test will be skipped.');
}
