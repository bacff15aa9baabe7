import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { withRetry, type RetryEvent } from './with-retry.js';
import { FallbackSignal } from './fallback-signal.js';
import { classifyHttpError } from '../errors/classify-http-error.js';
import { TurnError } from '../errors/turn-error.js';
import { createScriptedOperation, settle } from './scripted-operation.test-helper.js';

const overloaded = (): TurnError =>
  classifyHttpError(529, undefined, JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }));
const rateLimited = (headers: Record<string, string> = {}): TurnError =>
  classifyHttpError(429, headers, JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } }));
const serverError = (status = 500): TurnError => classifyHttpError(status, undefined, '');
const terminated = (): TypeError =>
  new TypeError('terminated', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) });

let ids = 0;
const createAttemptId = (): string => `a${(ids += 1)}`;

beforeEach(() => {
  ids = 0;
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('withRetry', () => {
  it('R1.1/R1.4/R1.5 retries 5xx, 408, 409, 529 and transport drops with the exact backoff, visibly', async () => {
    const script = createScriptedOperation([serverError(500), serverError(408), serverError(409), overloaded(), terminated()]);
    const events: RetryEvent[] = [];
    const result = settle(withRetry(script.operation, { random: () => 0, onRetry: (event) => events.push(event), createAttemptId }));
    await vi.runAllTimersAsync();
    expect(await result).toEqual({ ok: true, value: 'ok' });
    expect(events.map((event) => event.delayMs)).toEqual([500, 1000, 2000, 4000, 8000]);
    expect(script.startedAt).toEqual([0, 500, 1500, 3500, 7500, 15500]);
    expect(events.map((event) => [event.retryNumber, event.kind, event.code, event.status])).toEqual([
      [1, 'server', 'SERVER', 500],
      [2, 'server', 'SERVER', 408],
      [3, 'server', 'SERVER', 409],
      [4, 'overloaded', 'OVERLOADED', 529],
      [5, 'transport', 'TRANSPORT', undefined],
    ]);
    // Attempt ids link each retry to the attempt it replaces.
    expect(script.contexts.map((context) => [context.attempt, context.attemptId, context.previousAttemptId])).toEqual([
      [0, 'a1', undefined],
      [1, 'a2', 'a1'],
      [2, 'a3', 'a2'],
      [3, 'a4', 'a3'],
      [4, 'a5', 'a4'],
      [5, 'a6', 'a5'],
    ]);
    expect(events[0]).toMatchObject({ attemptId: 'a2', previousAttemptId: 'a1', reason: 'backoff' });
  });

  it('R1.5 onRetry fires before the sleep starts', async () => {
    const script = createScriptedOperation([serverError()]);
    const seenAt: number[] = [];
    const result = settle(withRetry(script.operation, { random: () => 0, onRetry: () => seenAt.push(Date.now()) }));
    await vi.advanceTimersByTimeAsync(0);
    expect([seenAt, script.contexts.length]).toEqual([[0], 1]);
    await vi.advanceTimersByTimeAsync(499);
    expect(script.contexts.length).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(script.contexts.length).toBe(2);
    expect((await result).ok).toBe(true);
  });

  it('R1.4 stops after 10 retries (11 attempts) and throws the last error; jitter comes from random()', async () => {
    const failures = Array.from({ length: 20 }, () => serverError(502));
    const script = createScriptedOperation(failures);
    const events: RetryEvent[] = [];
    const result = settle(withRetry(script.operation, { random: () => 0.5, onRetry: (event) => events.push(event) }));
    await vi.runAllTimersAsync();
    const outcome = await result;
    expect(script.contexts.length).toBe(11);
    expect(outcome).toEqual({ ok: false, error: failures[10] });
    expect(events.map((event) => event.delayMs)).toEqual([563, 1125, 2250, 4500, 9000, 18000, 36000, 36000, 36000, 36000]);
  });

  it('R1.4 maxRetries and the curve are options', async () => {
    const script = createScriptedOperation([serverError(), serverError(), serverError()]);
    const events: RetryEvent[] = [];
    const result = settle(
      withRetry(script.operation, { maxRetries: 2, initialDelayMs: 100, maxDelayMs: 150, jitterRatio: 0, onRetry: (event) => events.push(event) }),
    );
    await vi.runAllTimersAsync();
    expect((await result).ok).toBe(false);
    expect([script.contexts.length, events.map((event) => event.delayMs)]).toEqual([3, [100, 150]]);
  });

  it.each([
    ['400', () => classifyHttpError(400, undefined, '{"error":{"message":"bad"}}')],
    ['404', () => classifyHttpError(404, undefined, '')],
    ['413', () => classifyHttpError(413, undefined, '')],
    ['STREAM_CUT', () => new TurnError({ kind: 'stream_cut', message: 'output already delivered' })],
    ['x-should-retry: false on a 503', () => classifyHttpError(503, { 'x-should-retry': 'false' }, '')],
  ])('R1.2 %s is thrown at once and never resent', async (_label, createError) => {
    const failure = createError();
    const script = createScriptedOperation([failure]);
    const onRetry = vi.fn();
    const result = settle(withRetry(script.operation, { onRetry }));
    await vi.runAllTimersAsync();
    expect(await result).toEqual({ ok: false, error: failure });
    expect([script.contexts.length, onRetry.mock.calls.length]).toEqual([1, 0]);
  });

  it('R1.1 x-should-retry: true makes a 400 retryable', async () => {
    const script = createScriptedOperation([classifyHttpError(400, { 'x-should-retry': 'true' }, '')]);
    const result = settle(withRetry(script.operation, { random: () => 0 }));
    await vi.runAllTimersAsync();
    expect([(await result).ok, script.startedAt]).toEqual([true, [0, 500]]);
  });

  it('R1.3 waits exactly the server-directed time on 429/529/503 instead of the backoff', async () => {
    const script = createScriptedOperation([
      rateLimited({ 'retry-after': '7' }),
      classifyHttpError(529, { 'retry-after-ms': '1234' }, ''),
      classifyHttpError(503, { 'retry-after': 'Thu, 01 Jan 1970 00:00:20 GMT' }, ''),
      classifyHttpError(500, { 'retry-after': '60' }, ''),
    ]);
    const events: RetryEvent[] = [];
    const result = settle(withRetry(script.operation, { random: () => 0, onRetry: (event) => events.push(event) }));
    await vi.runAllTimersAsync();
    expect((await result).ok).toBe(true);
    // The 503's HTTP-date (20 s after epoch) is turned into a wait when the response is classified,
    // here at t = 0 → 20000 ms; a 500's retry-after is not honoured.
    expect(events.map((event) => [event.delayMs, event.reason])).toEqual([
      [7000, 'server_directed'],
      [1234, 'server_directed'],
      [20000, 'server_directed'],
      [500, 'backoff'],
    ]);
    expect(script.startedAt).toEqual([0, 7000, 8234, 28234, 28734]);
  });

  it('R1.3 a server wait past the deadline or above maxServerWaitMs fails at once with the rate-limit error', async () => {
    const tooLong = rateLimited({ 'retry-after': '30' });
    const first = createScriptedOperation([tooLong]);
    const pastDeadline = settle(withRetry(first.operation, { deadlineAt: 10_000 }));
    await vi.advanceTimersByTimeAsync(0);
    expect(await pastDeadline).toEqual({ ok: false, error: tooLong });
    expect(tooLong.retryAfterMs).toBe(30_000);

    const second = createScriptedOperation([tooLong]);
    const capped = settle(withRetry(second.operation, { maxServerWaitMs: 20_000 }));
    await vi.advanceTimersByTimeAsync(0);
    expect(await capped).toEqual({ ok: false, error: tooLong });
    expect([first.contexts.length, second.contexts.length, vi.getTimerCount()]).toEqual([1, 1, 0]);
  });

  it('R1.3 a wait that fits the deadline is taken', async () => {
    const script = createScriptedOperation([rateLimited({ 'retry-after': '5' })]);
    const result = settle(withRetry(script.operation, { deadlineAt: 5000 }));
    await vi.runAllTimersAsync();
    expect([(await result).ok, script.startedAt]).toEqual([true, [0, 5000]]);
  });

  it('R1.6 an abort during the backoff sleep ends it at once as ABORTED, with no further attempt', async () => {
    const controller = new AbortController();
    const script = createScriptedOperation([serverError(), serverError()]);
    const result = settle(withRetry(script.operation, { signal: controller.signal, random: () => 0, initialDelayMs: 60_000 }));
    await vi.advanceTimersByTimeAsync(1000);
    controller.abort();
    await vi.advanceTimersByTimeAsync(0);
    const outcome = await result;
    expect(outcome.ok).toBe(false);
    const error = (outcome as { error: TurnError }).error;
    expect([error.kind, error.code, error.retryable]).toEqual(['aborted', 'ABORTED', false]);
    await vi.runAllTimersAsync();
    expect(script.contexts.length).toBe(1);
  });

  it('R1.6 adds no listener to the caller signal for an attempt that never reads context.signal', async () => {
    const controller = new AbortController();
    const add = vi.spyOn(controller.signal, 'addEventListener');
    let kept: { signal: AbortSignal } | undefined;
    await expect(
      withRetry(
        async (context) => {
          kept = context;
          return 'ok';
        },
        { signal: controller.signal },
      ),
    ).resolves.toBe('ok');
    expect(add).not.toHaveBeenCalled();
    // Read only after the attempt ended: it reflects the caller's state at that end, not a later abort.
    controller.abort('late');
    expect(kept?.signal.aborted).toBe(false);
    expect(add).not.toHaveBeenCalled();
  });

  it('R1.6 an abort during the request is ABORTED, never a retry; the attempt signal follows the caller', async () => {
    const controller = new AbortController();
    const seenSignals: AbortSignal[] = [];
    const onRetry = vi.fn();
    const result = settle(
      withRetry(
        (context) =>
          new Promise<string>((_resolve, reject) => {
            seenSignals.push(context.signal);
            // What undici does when the request's signal aborts mid-body.
            context.signal.addEventListener('abort', () => reject(terminated()));
          }),
        { signal: controller.signal, onRetry },
      ),
    );
    await vi.advanceTimersByTimeAsync(10);
    controller.abort('interrupt');
    const outcome = await result;
    const error = (outcome as { error: TurnError }).error;
    expect([error.code, error.details['abortReason'], seenSignals.length, seenSignals[0]?.aborted, onRetry.mock.calls.length]).toEqual([
      'ABORTED',
      'interrupt',
      1,
      true,
      0,
    ]);
  });

  it('R1.6 an already-aborted signal sends no request', async () => {
    const script = createScriptedOperation([]);
    const outcome = await settle(withRetry(script.operation, { signal: AbortSignal.abort() }));
    expect([(outcome as { error: TurnError }).error.code, script.contexts.length]).toEqual(['ABORTED', 0]);
  });

  it('a host hook that throws (clock, attempt ids, the operation itself) rejects the call, never throws from it', async () => {
    const bug = new Error('host bug');
    const thrower = (): never => {
      throw bug;
    };
    const script = createScriptedOperation([]);
    // The hooks' own error as it is; the operation's classified as any failed attempt's (R2.1).
    const calls: [() => Promise<unknown>, (error: unknown) => boolean][] = [
      [() => withRetry(script.operation, { now: thrower }), (error) => error === bug],
      [() => withRetry(script.operation, { createAttemptId: thrower }), (error) => error === bug],
      [() => withRetry(thrower, { maxRetries: 0 }), (error) => TurnError.isInstance(error) && error.cause === bug],
    ];
    for (const [call, expected] of calls) {
      let returned: Promise<unknown> | undefined;
      expect(() => (returned = call())).not.toThrow();
      const outcome = (await settle(returned!)) as { error: unknown };
      expect(expected(outcome.error)).toBe(true);
    }
    expect(script.contexts).toHaveLength(0);
  });

  it('R1.7 401 with a refresh hook: refresh once, retry once, succeed', async () => {
    const refreshCredentials = vi.fn(async () => {});
    const script = createScriptedOperation([classifyHttpError(401, undefined, '{"error":{"message":"expired"}}')]);
    const events: RetryEvent[] = [];
    const result = settle(withRetry(script.operation, { refreshCredentials, onRetry: (event) => events.push(event) }));
    await vi.runAllTimersAsync();
    expect([(await result).ok, refreshCredentials.mock.calls.length, script.contexts.length]).toEqual([true, 1, 2]);
    expect(events.map((event) => [event.delayMs, event.reason, event.status])).toEqual([[0, 'auth_refresh', 401]]);
  });

  it('R1.7 a second 401/403 fails; without a hook the first one does', async () => {
    const refreshCredentials = vi.fn(async () => {});
    const second = classifyHttpError(403, undefined, '');
    const script = createScriptedOperation([classifyHttpError(401, undefined, ''), second]);
    const result = settle(withRetry(script.operation, { refreshCredentials }));
    await vi.runAllTimersAsync();
    expect([await result, refreshCredentials.mock.calls.length, script.contexts.length]).toEqual([{ ok: false, error: second }, 1, 2]);

    const noHook = createScriptedOperation([classifyHttpError(401, undefined, '')]);
    const plain = settle(withRetry(noHook.operation));
    await vi.runAllTimersAsync();
    expect([(await plain).ok, noHook.contexts.length]).toEqual([false, 1]);
  });

  it('R1.8 a context overflow is not thrown: the next try gets max(3000, C - A - 1000, thinking + 1)', async () => {
    const overflow = classifyHttpError(
      400,
      undefined,
      JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'input length and `max_tokens` exceed context limit: 188059 + 20000 > 200000' } }),
    );
    const script = createScriptedOperation([overflow, serverError()]);
    const events: RetryEvent[] = [];
    const result = settle(withRetry(script.operation, { random: () => 0, onRetry: (event) => events.push(event) }));
    await vi.runAllTimersAsync();
    expect((await result).ok).toBe(true);
    expect(script.contexts.map((context) => context.maxOutputTokensOverride)).toEqual([undefined, 10941, 10941]);
    expect(events.map((event) => [event.delayMs, event.reason])).toEqual([
      [0, 'context_overflow_resize'],
      [500, 'backoff'],
    ]);
  });

  it('R1.8 the thinking budget floors the resize (from details, or the option)', async () => {
    const withBudget = new TurnError({
      kind: 'invalid_request',
      status: 400,
      message: 'overflow',
      details: { contextOverflow: { inputTokens: 195000, maxTokens: 32000, contextLimit: 200000, thinkingBudget: 8000 } },
    });
    const first = createScriptedOperation([withBudget]);
    await settle(withRetry(first.operation));
    const fromOption = createScriptedOperation([withBudget.with({ details: { contextOverflow: { inputTokens: 195000, maxTokens: 32000, contextLimit: 200000 } } })]);
    await settle(withRetry(fromOption.operation, { thinkingBudget: 4096 }));
    expect([first.contexts[1]?.maxOutputTokensOverride, fromOption.contexts[1]?.maxOutputTokensOverride]).toEqual([8001, 4097]);
  });

  it('R1.9 three consecutive overloads with a fallback model raise the FallbackSignal', async () => {
    const script = createScriptedOperation([overloaded(), overloaded(), overloaded(), overloaded()]);
    const result = settle(withRetry(script.operation, { fallbackModel: 'claude-haiku-4-5', random: () => 0 }));
    await vi.runAllTimersAsync();
    const outcome = await result;
    const signal = (outcome as { error: FallbackSignal }).error;
    expect(FallbackSignal.isInstance(signal)).toBe(true);
    expect(TurnError.isInstance(signal)).toBe(true);
    expect([signal.code, signal.fallbackModel, signal.consecutiveOverloads, signal.retryable]).toEqual([
      'FALLBACK_TRIGGERED',
      'claude-haiku-4-5',
      3,
      false,
    ]);
    expect(script.startedAt).toEqual([0, 500, 1500]);
  });

  it('R1.9 only consecutive overloads count, and no fallback model means plain retries', async () => {
    const interrupted = createScriptedOperation([overloaded(), overloaded(), serverError(), overloaded(), overloaded()]);
    const result = settle(withRetry(interrupted.operation, { fallbackModel: 'fallback', random: () => 0 }));
    await vi.runAllTimersAsync();
    expect([(await result).ok, interrupted.contexts.length]).toEqual([true, 6]);

    const noFallback = createScriptedOperation([overloaded(), overloaded(), overloaded(), overloaded()]);
    const plain = settle(withRetry(noFallback.operation, { random: () => 0 }));
    await vi.runAllTimersAsync();
    expect([(await plain).ok, noFallback.contexts.length]).toEqual([true, 5]);
  });
});
