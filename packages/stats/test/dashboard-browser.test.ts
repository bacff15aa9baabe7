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

/**
 * An operator's afternoon across the three protocols: rate limits retried,
 * overloads that fell back to another model, a cut answer continued, a cut
 * thinking stream recovered, a stream cut that failed the turn, and a
 * request whose upstream reported no usage.
 */
async function writeOperatorStats(path: string): Promise<void> {
  const store = createStatsStore({ path });
  const hour = (h: number, minute = 0): number => Date.UTC(2026, 8, 28, h, minute);
  const ok = { ok: true, errorCode: undefined, recoveryAttempt: false, recovered: false, recoveryScheduled: false, recoveryId: undefined, truncated: false, attempt: 0 as const, usage: { ...NO_USAGE, inputTokens: 900, outputTokens: 120 } };
  const failed = (errorCode: string) => ({ ...ok, ok: false, errorCode, usage: NO_USAGE, noUsage: true, ttftMs: undefined, decodeWindowMs: undefined });
  const samples = [
    ...Array.from({ length: 6 }, (_, index) => createTestSample({ ...ok, protocol: 'chat', model: 'gpt-4.1', time: hour(10, index * 9) })),
    createTestSample({ ...failed('RATE_LIMIT'), protocol: 'chat', model: 'gpt-4.1', time: hour(11, 2) }),
    createTestSample({ ...failed('RATE_LIMIT'), protocol: 'chat', model: 'gpt-4.1', time: hour(11, 3) }),
    createTestSample({ ...ok, protocol: 'chat', model: 'gpt-4.1', time: hour(11, 4) }),
    createTestSample({ ...failed('OVERLOADED'), protocol: 'messages', model: 'claude-opus-4', time: hour(12, 10) }),
    createTestSample({ ...failed('OVERLOADED'), protocol: 'messages', model: 'claude-opus-4', time: hour(12, 11) }),
    createTestSample({ ...ok, protocol: 'messages', model: 'claude-sonnet-4', fallbackFrom: 'claude-opus-4', time: hour(12, 12) }),
    createTestSample({ ...failed('STREAM_CUT'), protocol: 'responses', model: 'gpt-5', time: hour(13, 30) }),
    createTestSample({ ...ok, protocol: 'responses', model: 'gpt-5', usage: NO_USAGE, noUsage: true, time: hour(13, 40) }),
    createTestSample({ ...failed('STREAM_CUT'), protocol: 'chat', model: 'gpt-4.1', time: hour(14, 5) }),
    createTestSample({ ...ok, protocol: 'chat', model: 'gpt-4.1', continuation: true, time: hour(14, 6) }),
  ];
  for (const sample of samples) void store.recordUsage(sample);
  const turns = [
    ...Array.from({ length: 6 }, (_, index) => makeTurnRecordCountedAs('ok', { time: hour(10, index * 9) })),
    makeTurnRecordCountedAs('ok', { time: hour(11, 4) }),
    makeTurnRecordCountedAs('ok', { time: hour(12, 12), protocol: 'messages' }),
    makeTurnRecordCountedAs('failed', { time: hour(13, 30), protocol: 'responses' }),
    makeTurnRecordCountedAs('ok', { time: hour(13, 40), protocol: 'responses' }),
    makeTurnRecordCountedAs('ok', { time: hour(14, 6) }),
  ];
  for (const turn of turns) void store.recordTurn(turn);
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

  it('every table fits its card at 1280 px, the longest error codes on every protocol included', async () => {
    const path = join(dir, 'long-codes.json');
    const store = createStatsStore({ path });
    const at = Date.UTC(2026, 8, 28, 9, 0);
    for (const [index, protocol] of (['chat', 'messages', 'responses'] as const).entries()) {
      for (const errorCode of ['PROMPT_TOO_LONG', 'CONTEXT_LENGTH_EXCEEDED', 'OVERLOADED', 'STREAM_STALL', 'UPSTREAM_HEADERS_TIMEOUT']) {
        void store.recordUsage(createTestSample({ time: at + index * 1000, protocol, ok: false, errorCode, usage: NO_USAGE, noUsage: true, ttftMs: undefined, decodeWindowMs: undefined }));
      }
    }
    await store.close();
    const server = await startDashboardServer({ file: path, port: 0, utc: true });
    try {
      const { page } = await openDashboard(server);
      await page.waitForSelector('body[data-state="ready"]', { timeout: 10_000 });
      const overflowing = await page.locator('.card table').evaluateAll((tables) =>
        tables.filter((table) => table.getBoundingClientRect().right > table.closest('.card')!.getBoundingClientRect().right + 0.5).map((table) => table.closest('.card')!.querySelector('h2')?.textContent),
      );
      expect(overflowing).toEqual([]);
      // A code wraps only after an underscore: each line of a code cell ends a word (no "OVERLOADE / D").
      const splitWords = await page.locator('td.code').evaluateAll((cells) =>
        cells.flatMap((cell) => {
          const range = document.createRange();
          const lines = new Map<number, string>();
          for (const node of cell.childNodes) {
            if (node.nodeType !== Node.TEXT_NODE) continue;
            for (let i = 0; i < node.textContent!.length; i++) {
              range.setStart(node, i);
              range.setEnd(node, i + 1);
              const top = Math.round(range.getBoundingClientRect().top);
              lines.set(top, (lines.get(top) ?? '') + node.textContent![i]);
            }
          }
          const parts = [...lines.values()];
          return parts.slice(0, -1).some((line) => !line.endsWith('_')) ? [parts.join(' / ')] : [];
        }),
      );
      expect(splitWords).toEqual([]);
      await page.close();
    } finally {
      await server.close();
    }
  });

  it('shows failures by code and protocol, the hourly series, recent failures, fallbacks, continuations and what "no usage" means', async () => {
    const path = join(dir, 'operator.json');
    await writeOperatorStats(path);
    const server = await startDashboardServer({ file: path, port: 0, utc: true });
    try {
      const { page, foreignRequests } = await openDashboard(server);
      await page.waitForSelector('body[data-state="ready"]', { timeout: 10_000 });
      const rows = async (testid: string) =>
        page.locator(`[data-testid="${testid}"] tr`).evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
      expect(await rows('failure-codes')).toEqual([
        ['OVERLOADED', '2', '0', '2', '0'],
        ['RATE_LIMIT', '2', '2', '0', '0'],
        ['STREAM_CUT', '2', '1', '0', '1'],
      ]);
      expect(await rows('failure-protocols')).toEqual([
        ['chat', '11', '3', '27.3%'],
        ['messages', '3', '2', '66.7%'],
        ['responses', '2', '1', '50.0%'],
      ]);
      expect((await rows('recent-failures')).slice(0, 2)).toEqual([
        ['2026-09-28 14:05:00', 'chat', 'gpt-4.1', 'STREAM_CUT'],
        ['2026-09-28 13:30:00', 'responses', 'gpt-5', 'STREAM_CUT'],
      ]);
      expect(await rows('recent-failures')).toHaveLength(6);
      // Five hours, 10:00 to 14:00; 11:00 had 3 requests (2 failed) and 1 turn.
      expect(await page.locator('[data-testid="hourly-chart"] rect[data-hour]').count()).toBe(5);
      const at11 = page.locator('[data-testid="hourly-chart"] rect[data-hour="2026-09-28 11:00"]');
      expect(await at11.evaluate((rect) => [rect.getAttribute('data-requests'), rect.getAttribute('data-failed-requests'), rect.getAttribute('data-turns')])).toEqual(['3', '2', '1']);
      expect(await page.locator('[data-testid="hourly-chart"] rect[data-hour="2026-09-28 13:00"]').getAttribute('data-failed-turns')).toBe('1');
      expect(await page.locator('[data-testid="failover-fallbacks"]').textContent()).toBe('1');
      expect(await page.locator('[data-testid="failover-continuations"]').textContent()).toBe('1');
      expect(await rows('failover-routes')).toEqual([[], ['claude-opus-4', 'claude-sonnet-4', '1']]);
      const noUsage = await page.locator('[data-testid="no-usage-note"]').textContent();
      expect(noUsage).toContain('7 requests for which the upstream reported no token counts');
      expect(noUsage).toContain('never estimated and never counted as 0');
      await mkdir(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, 'dashboard-operations.png'), fullPage: true });
      expect(foreignRequests).toEqual([]);
      await page.close();
    } finally {
      await server.close();
    }
  }, 30_000);

  it('says so when nothing failed and nothing fell back', async () => {
    const path = join(dir, 'quiet.json');
    const store = createStatsStore({ path });
    void store.recordUsage(createTestSample({ ok: true, errorCode: undefined, recoveryAttempt: false, recovered: false, recoveryScheduled: false }));
    void store.recordTurn(makeTurnRecordCountedAs('ok'));
    await store.close();
    const server = await startDashboardServer({ file: path, port: 0, utc: true });
    try {
      const { page } = await openDashboard(server);
      await page.waitForSelector('body[data-state="ready"]', { timeout: 10_000 });
      expect(await page.locator('[data-testid="failure-codes"]').textContent()).toBe('No failed requests in the retained window.');
      expect(await page.locator('[data-testid="failover-none"]').textContent()).toContain('No request fell back');
      expect(await page.locator('[data-testid="no-usage-note"]').textContent()).toContain('0 requests');
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
