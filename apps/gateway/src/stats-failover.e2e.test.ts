import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fault } from '@turnguard/testkit';
import { createStatsStore, loadDashboardPayload, type StatsStore } from '@turnguard/stats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FULL_DEFAULT_ANSWER, SHORT_SETTINGS, answerFrom, restOfDefaultAnswer, startFailoverHarness, type FailoverHarness } from './testing/failover-harness.test-helper.js';

/*
 * R11.7 into R6 (decision 0382): the gateway's samples of a fallen-back and a
 * continued turn, written to a real stats file, carry `model`, `fallbackFrom`
 * and `continuation`, and the dashboard's payload counts them in its
 * fallbacks and continuations panel (the page itself is checked in Chromium
 * by packages/stats' browser test).
 */
let dir: string;
let path: string;
let store: StatsStore;
let harness: FailoverHarness;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'turnguard-stats-failover-'));
  path = join(dir, 'stats.json');
  store = createStatsStore({ path });
  harness = await startFailoverHarness(SHORT_SETTINGS, { continuation: 'prefill', stats: store });
  harness.upstream.model('stats-primary').always(fault.contextLength());
  harness.upstream.model('stats-fallback').always(answerFrom('fallback'));
  expect((await harness.ask('chat', 'stream', 'stats-primary', { fallbacks: ['stats-fallback'] })).error).toBeUndefined();
  expect((await harness.ask('responses', 'json', 'stats-primary', { fallbacks: ['stats-fallback'] })).error).toBeUndefined();
  harness.upstream.model('stats-continued').queue(fault.cut(), restOfDefaultAnswer);
  expect((await harness.ask('messages', 'stream', 'stats-continued')).text).toBe(FULL_DEFAULT_ANSWER);
  await harness.close();
  // Everything queued is on disk once the store has closed.
  await store.close();
}, 30_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('fail-over samples reach the stats file and the dashboard (R11.7, R6.1, decision 0382)', () => {
  it('the dashboard payload counts the fallback requests by route and the continuation', async () => {
    const payload = await loadDashboardPayload(path);
    expect(payload.state).toBe('ok');
    if (payload.state !== 'ok') return;
    expect(payload.summary.failover).toEqual({
      fallbacks: 2,
      continuations: 1,
      routes: [{ from: 'stats-primary', to: 'stats-fallback', count: 2 }],
    });
    // 2 × (a context-length 400, then the fallback's answer) + (a cut, then its continuation).
    expect(payload.summary.physical.requests).toBe(6);
    expect(payload.summary.logical.turns).toBe(3);
  });
});
