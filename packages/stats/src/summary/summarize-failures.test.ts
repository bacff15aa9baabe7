import { describe, expect, it } from 'vitest';
import { createTestSample } from '../store/test-samples.js';
import { buildHourlySeries, MAX_HOURS } from './hourly-series.js';
import { summarizeFailover } from './summarize-failover.js';
import { NO_ERROR_CODE, RECENT_FAILURES, summarizeFailures } from './summarize-failures.js';

const at = (day: number, hour: number, minute = 0): number => Date.UTC(2026, 8, day, hour, minute);
const ok = { ok: true, errorCode: undefined } as const;

describe('failures in the retained window', () => {
  it('counts failed requests by code (most frequent first, split by protocol) and by protocol, with the rate', () => {
    const samples = [
      createTestSample({ ...ok, protocol: 'chat' }),
      createTestSample({ ok: false, errorCode: 'RATE_LIMIT', protocol: 'chat' }),
      createTestSample({ ok: false, errorCode: 'RATE_LIMIT', protocol: 'messages' }),
      createTestSample({ ok: false, errorCode: 'STREAM_CUT', protocol: 'messages' }),
      createTestSample({ ok: false, errorCode: undefined, protocol: 'messages' }),
    ];
    const { byCode, byProtocol } = summarizeFailures(samples);
    expect(byCode).toEqual([
      { code: 'RATE_LIMIT', count: 2, byProtocol: { chat: 1, messages: 1, responses: 0 } },
      { code: NO_ERROR_CODE, count: 1, byProtocol: { chat: 0, messages: 1, responses: 0 } },
      { code: 'STREAM_CUT', count: 1, byProtocol: { chat: 0, messages: 1, responses: 0 } },
    ]);
    expect(byProtocol).toEqual([
      { protocol: 'chat', requests: 2, failed: 1, rate: 0.5 },
      { protocol: 'messages', requests: 3, failed: 3, rate: 1 },
    ]);
  });

  it(`lists the latest ${RECENT_FAILURES} failures newest first, with time, protocol, model and code only`, () => {
    const samples = Array.from({ length: 30 }, (_, index) => createTestSample({ time: at(28, 0, index), ok: false, errorCode: 'OVERLOADED', model: `m-${index}` }));
    const { recent } = summarizeFailures(samples, true);
    expect(recent).toHaveLength(RECENT_FAILURES);
    expect(recent[0]).toEqual({ time: at(28, 0, 29), label: '2026-09-28 00:29:00', protocol: 'messages', model: 'm-29', code: 'OVERLOADED' });
    expect(Object.keys(recent[0]!).sort()).toEqual(['code', 'label', 'model', 'protocol', 'time']);
  });
});

describe('per-hour series', () => {
  it('has every hour from the first record to the last, empty hours included', () => {
    const samples = [
      createTestSample({ ...ok, time: at(28, 10, 5) }),
      createTestSample({ ok: false, time: at(28, 10, 50) }),
      createTestSample({ ...ok, time: at(28, 13, 0) }),
    ];
    const turns = [{ time: at(28, 10, 51), outcome: 'failed' as const }, { time: at(28, 13, 1), outcome: 'ok' as const }];
    const { hours, truncated } = buildHourlySeries(samples, turns, true);
    expect(truncated).toBe(false);
    expect(hours).toEqual([
      { start: at(28, 10), label: '2026-09-28 10:00', requests: 2, failedRequests: 1, turns: 1, failedTurns: 1 },
      { start: at(28, 11), label: '2026-09-28 11:00', requests: 0, failedRequests: 0, turns: 0, failedTurns: 0 },
      { start: at(28, 12), label: '2026-09-28 12:00', requests: 0, failedRequests: 0, turns: 0, failedTurns: 0 },
      { start: at(28, 13), label: '2026-09-28 13:00', requests: 1, failedRequests: 0, turns: 1, failedTurns: 0 },
    ]);
  });

  it(`keeps the last ${MAX_HOURS} hours of a longer window and says so`, () => {
    const samples = [createTestSample({ ...ok, time: at(1, 0) }), createTestSample({ ...ok, time: at(20, 5) })];
    const { hours, truncated } = buildHourlySeries(samples, [], true);
    expect(truncated).toBe(true);
    expect(hours).toHaveLength(MAX_HOURS);
    expect(hours.at(-1)).toMatchObject({ start: at(20, 5), requests: 1 });
    expect(hours.reduce((sum, hour) => sum + hour.requests, 0)).toBe(1);
  });

  it('is empty for an empty window', () => {
    expect(buildHourlySeries([], [], false)).toEqual({ hours: [], truncated: false });
  });
});

describe('R11.7 fallbacks and continuations', () => {
  it('counts fallback requests by route and continuations from the samples’ fail-over fields; absent fields count nothing', () => {
    const samples = [
      createTestSample({ ...ok }),
      createTestSample({ ...ok, model: 'claude-sonnet-4', fallbackFrom: 'claude-opus-4' }),
      createTestSample({ ok: false, model: 'claude-sonnet-4', fallbackFrom: 'claude-opus-4' }),
      createTestSample({ ...ok, model: 'gpt-4.1-mini', fallbackFrom: 'gpt-4.1', continuation: true }),
      createTestSample({ ...ok, continuation: true }),
    ];
    expect(summarizeFailover(samples)).toEqual({
      fallbacks: 3,
      continuations: 2,
      routes: [
        { from: 'claude-opus-4', to: 'claude-sonnet-4', count: 2 },
        { from: 'gpt-4.1', to: 'gpt-4.1-mini', count: 1 },
      ],
    });
    expect(summarizeFailover([createTestSample()])).toEqual({ fallbacks: 0, continuations: 0, routes: [] });
  });
});
