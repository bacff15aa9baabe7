import { describe, expect, it } from 'vitest';
import { applyRecords, DEFAULT_RETENTION, type PendingRecord } from '../store/apply-records.js';
import { createEmptyStatsFile } from '../store/stats-file.js';
import { createTestSample } from '../store/test-samples.js';
import { computePercentile } from './percentile.js';
import { collectDecodeSpeeds, summarizeStats } from './summarize-stats.js';

const NO_USAGE = { inputTokens: undefined, cachedInputTokens: undefined, cacheCreationInputTokens: undefined, outputTokens: undefined, reasoningTokens: undefined, totalTokens: undefined };

describe('percentiles', () => {
  it('uses nearest rank and says unknown for no data', () => {
    const values = Array.from({ length: 100 }, (_, index) => 100 - index);
    expect([computePercentile(values, 50), computePercentile(values, 90), computePercentile(values, 99)]).toEqual([50, 90, 99]);
    expect(computePercentile([7], 99)).toBe(7);
    expect(computePercentile([], 50)).toBeUndefined();
  });
});

describe('R5.4 decode speed', () => {
  it('uses each successful segment\'s own window and own known output tokens only', () => {
    const cut = createTestSample({ ok: false, decodeWindowMs: 60_000, usage: { ...NO_USAGE, outputTokens: 6000 } });
    const recovery = createTestSample({ ok: true, decodeWindowMs: 2000, usage: { ...NO_USAGE, outputTokens: 100 } });
    const unknownTokens = createTestSample({ ok: true, decodeWindowMs: 2000, usage: NO_USAGE, noUsage: true });
    const noWindow = createTestSample({ ok: true, decodeWindowMs: undefined });
    // 50 tok/s from the recovery segment alone; never (6000+100)/(62 s).
    expect(collectDecodeSpeeds([cut, recovery, unknownTokens, noWindow])).toEqual([50]);
  });
});

describe('summarizeStats', () => {
  function buildFile() {
    const monday9 = Date.UTC(2026, 8, 28, 9, 30);
    const records: PendingRecord[] = [
      { kind: 'usage', sample: createTestSample({ time: monday9, ok: false, recoveryAttempt: false, recoveryScheduled: true, recovered: false, ttftMs: 100, decodeWindowMs: 1000, usage: { ...NO_USAGE, outputTokens: 10 } }) },
      { kind: 'usage', sample: createTestSample({ time: monday9 + 60_000, ok: true, errorCode: undefined, recoveryAttempt: true, recoveryScheduled: false, recovered: true, ttftMs: 300, decodeWindowMs: 1000, usage: { ...NO_USAGE, outputTokens: 40 } }) },
      { kind: 'usage', sample: createTestSample({ time: Date.UTC(2026, 8, 29, 9, 5), ok: false, recoveryAttempt: true, recovered: false, recoveryScheduled: false, ttftMs: 200, decodeWindowMs: 500, usage: NO_USAGE, noUsage: true }) },
      { kind: 'usage', sample: createTestSample({ time: Date.UTC(2026, 9, 4, 23, 59), ok: true, errorCode: undefined, recoveryAttempt: false, recovered: false, recoveryScheduled: false, ttftMs: undefined, decodeWindowMs: 2000, usage: { ...NO_USAGE, outputTokens: 200 } }) },
      { kind: 'turn', turn: { time: monday9 + 60_000, outcome: 'recovered' } },
      { kind: 'turn', turn: { time: Date.UTC(2026, 8, 29, 9, 6), outcome: 'failed' } },
      { kind: 'turn', turn: { time: Date.UTC(2026, 9, 4, 23, 59), outcome: 'ok' } },
    ];
    return applyRecords(createEmptyStatsFile(0), records, DEFAULT_RETENTION, 1);
  }

  it('puts physical and logical figures side by side', () => {
    const summary = summarizeStats(buildFile(), { utc: true });
    expect(summary.physical).toEqual({ requests: 4, ok: 2, failed: 2, noUsage: 1, successRate: 0.5, estimated: false });
    expect(summary.logical).toEqual({ turns: 3, ok: 1, failed: 1, recovered: 1, aborted: 0, successRate: 2 / 3, estimated: false });
  });

  it('computes recovery rate overall and per day', () => {
    const { recovery } = summarizeStats(buildFile(), { utc: true });
    expect(recovery).toMatchObject({ scheduled: 1, attempts: 2, recovered: 1, rate: 0.5 });
    expect(recovery.byDay).toEqual([
      { day: '2026-09-28', attempts: 1, recovered: 1, rate: 1, turns: 1, failedTurns: 0 },
      { day: '2026-09-29', attempts: 1, recovered: 0, rate: 0, turns: 1, failedTurns: 1 },
      { day: '2026-10-04', attempts: 0, recovered: 0, rate: undefined, turns: 1, failedTurns: 0 },
    ]);
  });

  it('reports decode speed, TTFT percentiles and a Monday-first weekday x hour heatmap', () => {
    const summary = summarizeStats(buildFile(), { utc: true });
    expect(summary.decodeSpeed).toMatchObject({ count: 2, p50: 40, p90: 100, mean: 70 });
    expect(summary.ttftMs).toEqual({ count: 3, p50: 200, p90: 300, p99: 300 });
    expect(summary.heatmap.counts).toHaveLength(7);
    expect(summary.heatmap.counts[0]?.[9]).toBe(2); // 2026-09-28 is a Monday
    expect(summary.heatmap.counts[1]?.[9]).toBe(1);
    expect(summary.heatmap.counts[6]?.[23]).toBe(1); // 2026-10-04 is a Sunday
    expect(summary.heatmap.max).toBe(2);
    expect(summary.heatmap.counts.flat().reduce((sum, count) => sum + count, 0)).toBe(4);
  });

  it('handles an empty file without dividing by zero', () => {
    const summary = summarizeStats(createEmptyStatsFile(0));
    expect(summary.physical.successRate).toBeUndefined();
    expect(summary.logical.successRate).toBeUndefined();
    expect(summary.decodeSpeed).toEqual({ count: 0, p50: undefined, p90: undefined, p99: undefined, mean: undefined });
    expect(summary.window).toEqual({ samples: 0, turns: 0, from: undefined, to: undefined });
  });
});
