import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { withRetry, type RetryEvent } from './with-retry.js';
import { classifyHttpError } from '../errors/classify-http-error.js';
import type { TurnError } from '../errors/turn-error.js';
import { createScriptedOperation, settle } from './scripted-operation.test-helper.js';

const rateLimited = (headers: Record<string, string> = {}): TurnError => classifyHttpError(429, headers, '');
const overloaded = (): TurnError => classifyHttpError(529, undefined, '');

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('withRetry unattended mode (R1.11)', () => {
  it('R1.11 retries 429/529 past the count limit with backoff capped at 5 min', async () => {
    const failures = Array.from({ length: 14 }, (_unused, index) => (index % 2 === 0 ? rateLimited() : overloaded()));
    const script = createScriptedOperation(failures);
    const events: RetryEvent[] = [];
    const result = settle(withRetry(script.operation, { unattended: true, random: () => 0, onRetry: (event) => events.push(event) }));
    await vi.runAllTimersAsync();
    expect((await result).ok).toBe(true);
    expect(script.contexts.length).toBe(15);
    expect(events.map((event) => event.delayMs)).toEqual([
      500, 1000, 2000, 4000, 8000, 16000, 32000, 64000, 128000, 256000, 300000, 300000, 300000, 300000,
    ]);
  });

  it('R1.11 sleeps to the rate-limit reset header, with a heartbeat every 30 s', async () => {
    const script = createScriptedOperation([rateLimited({ 'anthropic-ratelimit-unified-reset': '100' })]);
    const events: RetryEvent[] = [];
    const beats: Array<{ waitedMs: number; remainingMs: number }> = [];
    const result = settle(
      withRetry(script.operation, {
        unattended: true,
        onRetry: (event) => events.push(event),
        onHeartbeat: (beat) => beats.push(beat),
      }),
    );
    await vi.advanceTimersByTimeAsync(99_999);
    expect(script.contexts.length).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect((await result).ok).toBe(true);
    expect(script.startedAt).toEqual([0, 100_000]);
    expect(events.map((event) => [event.delayMs, event.reason])).toEqual([[100_000, 'rate_limit_reset']]);
    expect(beats).toEqual([
      { waitedMs: 30_000, remainingMs: 70_000 },
      { waitedMs: 60_000, remainingMs: 40_000 },
      { waitedMs: 90_000, remainingMs: 10_000 },
    ]);
  });

  it('R1.11 outside unattended mode the reset header is not a wait; the backoff is', async () => {
    const script = createScriptedOperation([rateLimited({ 'anthropic-ratelimit-unified-reset': '100' })]);
    const result = settle(withRetry(script.operation, { random: () => 0 }));
    await vi.runAllTimersAsync();
    expect([(await result).ok, script.startedAt]).toEqual([true, [0, 500]]);
  });

  it('R1.11 gives up when the next wait would pass the 6 h total cap', async () => {
    const fourHours = String(4 * 60 * 60);
    const last = rateLimited({ 'retry-after': fourHours });
    const script = createScriptedOperation([rateLimited({ 'retry-after': fourHours }), last]);
    const result = settle(withRetry(script.operation, { unattended: true }));
    await vi.runAllTimersAsync();
    expect(await result).toEqual({ ok: false, error: last });
    expect(script.startedAt).toEqual([0, 4 * 60 * 60_000]);
  });

  it('R1.11 other retryable errors still count against maxRetries', async () => {
    const failures = [classifyHttpError(500, undefined, ''), classifyHttpError(502, undefined, ''), classifyHttpError(503, undefined, '')];
    const script = createScriptedOperation(failures);
    const result = settle(withRetry(script.operation, { unattended: true, maxRetries: 2, random: () => 0 }));
    await vi.runAllTimersAsync();
    expect([await result, script.contexts.length]).toEqual([{ ok: false, error: failures[2] }, 3]);
  });

  it('R1.6 an abort ends an unattended sleep at once', async () => {
    const controller = new AbortController();
    const script = createScriptedOperation([rateLimited({ 'retry-after': '3600' })]);
    const result = settle(withRetry(script.operation, { unattended: true, signal: controller.signal }));
    await vi.advanceTimersByTimeAsync(45_000);
    controller.abort();
    const outcome = await result;
    expect([(outcome as { error: TurnError }).error.code, script.contexts.length]).toEqual(['ABORTED', 1]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
