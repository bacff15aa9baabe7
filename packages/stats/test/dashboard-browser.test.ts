import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboardServer, type DashboardServer } from '../src/dashboard/serve-dashboard.js';
import { createStatsStore } from '../src/store/stats-store.js';
import { createTestSample } from '../src/store/test-samples.js';
import { browserSkipReason } from './browser-skip-reason.js';
import { makeTurnRecordCountedAs } from '../src/store/test-turns.js';

/*
 * R6.6 in a real headless Chromium (Debian `chromium` + playwright-core).
 * On a machine without /usr/bin/chromium, or with TURNGUARD_SKIP_BROWSER=1,
 * this suite is skipped and says why; CI installs it first
 * (scripts/ensure-chromium.mjs).
 */
const CHROMIUM = '/usr/bin/chromium';
const skipReason = browserSkipReason(process.env, existsSync(CHROMIUM), CHROMIUM);
const ARTIFACTS = fileURLToPath(new URL('../artifacts/', import.meta.url));
const NO_USAGE = { inputTokens: undefined, cachedInputTokens: undefined, cacheCreationInputTokens: undefined, outputTokens: undefined, reasoningTokens: undefined, totalTokens: undefined };

if (skipReason !== undefined) console.warn(`[stats] dashboard browser test skipped: ${skipReason}`);

let dir: string;
let browser: BrowserContext | undefined;
let userDataDir: string;

async function writeKnownStats(path: string): Promise<void> {
  const store = createStatsStore({ path });
  const monday10 = Date.UTC(2026, 8, 28, 10, 0);
  for (let index = 0; index < 6; index += 1) {
    void store.recordUsage(createTestSample({ time: monday10 + index * 60_000, ok: true, errorCode: undefined, recoveryAttempt: false, recovered: false, recoveryScheduled: false, ttftMs: 100 * (index + 1), decodeWindowMs: 1000, usage: { ...NO_USAGE, outputTokens: 20 * (index + 1) } }));
  }
  // One cut thinking stream, recovered on Wednesday 15:00: 2 requests, 1 turn.
  const wednesday15 = Date.UTC(2026, 8, 30, 15, 0);
  void store.recordUsage(createTestSample({ time: wednesday15, ok: false, recoveryAttempt: false, recovered: false, recoveryScheduled: true, ttftMs: undefined }));
  void store.recordUsage(createTestSample({ time: wednesday15 + 1000, ok: true, errorCode: undefined, recoveryAttempt: true, recovered: true, recoveryScheduled: false, ttftMs: undefined, decodeWindowMs: undefined }));
  for (let index = 0; index < 6; index += 1) void store.recordTurn(makeTurnRecordCountedAs('ok', { time: monday10 + index * 60_000 }));
  void store.recordTurn(makeTurnRecordCountedAs('recovered', { time: wednesday15 + 1000 }));
  void store.recordTurn(makeTurnRecordCountedAs('aborted', { time: wednesday15 + 5000 }));
  await store.close();
}

async function openDashboard(server: DashboardServer): Promise<{ page: Page; foreignRequests: string[] }> {
  if (!browser) throw new Error('browser not started');
  const page = await browser.newPage();
  const foreignRequests: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(server.url)) foreignRequests.push(request.url());
  });
  await page.goto(server.url);
  return { page, foreignRequests };
}

describe.skipIf(skipReason !== undefined)(`R6.6 dashboard in headless Chromium${skipReason === undefined ? '' : ` (skipped: ${skipReason})`}`, () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tg-stats-dash-'));
    userDataDir = await mkdtemp(join(tmpdir(), 'tg-stats-chromium-'));
    // A fresh profile per run; playwright passes it as --user-data-dir.
    browser = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1280, height: 1000 },
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await rm(dir, { recursive: true, force: true });
    await rm(userDataDir, { recursive: true, force: true });
  });

  it('renders the figures and charts with the right numbers and takes a screenshot', async () => {
    const path = join(dir, 'stats.json');
    await writeKnownStats(path);
    const server = await startDashboardServer({ file: path, port: 0, utc: true });
    try {
      const { page, foreignRequests } = await openDashboard(server);
      await page.waitForSelector('body[data-state="ready"]', { timeout: 10_000 });
      const text = async (testid: string) => page.locator(`[data-testid="${testid}"]`).textContent();
      expect(await text('physical-requests')).toBe('8');
      expect(await text('physical-failed')).toBe('1');
      expect(await text('physical-success')).toBe('87.5%');
      expect(await text('logical-turns')).toBe('8');
      expect(await text('logical-failed')).toBe('0');
      expect(await text('logical-recovered')).toBe('1');
      expect(await text('logical-aborted')).toBe('1');
      expect(await text('logical-success')).toBe('87.5%');
      expect(await text('recovery-rate')).toContain('100.0% (1 of 1');
      // Heatmap: 7 x 24 cells, Monday 10:00 holds 6 requests, Wednesday 15:00 holds 2.
      expect(await page.locator('[data-testid="heatmap"] rect').count()).toBe(168);
      expect(await page.locator('rect[data-weekday="0"][data-hour="10"]').getAttribute('data-count')).toBe('6');
      expect(await page.locator('rect[data-weekday="2"][data-hour="15"]').getAttribute('data-count')).toBe('2');
      // Decode speed: 20..120 tok/s over six 1 s windows (the recovered segment has no window).
      expect(await page.locator('[data-testid="decode-chart-svg"] rect[data-bar="p50"]').getAttribute('data-value')).toBe('60');
      expect(await page.locator('[data-testid="decode-chart-svg"] rect[data-bar="p90"]').getAttribute('data-value')).toBe('120');
      expect(await page.locator('[data-testid="ttft-chart-svg"] rect[data-bar="p50"]').getAttribute('data-value')).toBe('300');
      expect(await page.locator('[data-testid="recovery-chart"] rect[data-day="2026-09-30"]').getAttribute('data-rate')).toBe('1');
      expect(await page.locator('#physical-bar rect[data-part="failed"]').getAttribute('data-value')).toBe('1');
      expect(await text('models')).toContain('claude-sonnet-4');
      await mkdir(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, 'dashboard.png'), fullPage: true });
      expect(foreignRequests).toEqual([]);
      await page.close();
    } finally {
      await server.close();
    }
  }, 30_000);

  it('shows the empty state for a missing file and the error state for a corrupt one', async () => {
    const path = join(dir, 'later.json');
    const server = await startDashboardServer({ file: path, port: 0 });
    try {
      const { page } = await openDashboard(server);
      await page.waitForSelector('body[data-state="empty"]', { timeout: 10_000 });
      expect(await page.locator('[data-testid="state-message"]').textContent()).toContain('No stats recorded yet');
      await writeFile(path, '{"version":3,');
      await page.reload();
      await page.waitForSelector('body[data-state="error"]', { timeout: 10_000 });
      expect(await page.locator('[data-testid="state-message"]').textContent()).toContain('STATS_FILE_CORRUPT');
      await page.screenshot({ path: join(ARTIFACTS, 'dashboard-error.png') });
      await page.close();
    } finally {
      await server.close();
    }
  }, 30_000);
});
