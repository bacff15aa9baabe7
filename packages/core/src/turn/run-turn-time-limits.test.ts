import { afterEach, describe, expect, it, vi } from 'vitest';
import { INTERACTIVE_RETRY_BUDGET, type RetryBudget } from '../failover/retry-budget.js';
import type { UpstreamTimeLimitOptions } from '../failover/upstream-time-limits.js';
import type { TurnEvent } from '../types/turn-event.js';
import { collectTurnEvents, textOf } from './fake-wire.test-helper.js';
import { PRIMARY, SECOND, type ChainNative, type ChainReply } from './fake-chain-wire.test-helper.js';
import type { RunTurnOptions } from './run-turn.js';
import { startChainTurn } from './chain-turn.test-helper.js';

/** Short limits, as a test or a tight config sets them (R11.4). */
const LIMITS: UpstreamTimeLimitOptions = { responseHeadersMs: 2000, firstTokenMs: 3000, stallBeforeOutputMs: 4000, stallAfterOutputMs: 1500 };
const BUDGET: RetryBudget = { ...INTERACTIVE_RETRY_BUDGET, initialDelayMs: 10, maxDelayMs: 10, jitterRatio: 0, burst: undefined, retryWindowMs: undefined };

function setup(script: Record<string, ChainReply[]>, options: Partial<RunTurnOptions<ChainNative>> = {}) {
  return startChainTurn(script, { retryBudget: BUDGET, timeLimits: LIMITS, ...options });
}

const answer: ChainReply = { lines: [{ t: 'Fallback answer.' }, { end: 'stop' }] };
const errorsOf = (events: TurnEvent[]) => events.flatMap((event) => (event.type === 'error' ? [event.error] : []));
const fallbacksOf = (events: TurnEvent[]) => events.flatMap((event) => (event.type === 'fallback' ? [event] : []));

/** Drives a turn on fake timers: advances `ms`, then lets it finish. */
async function playFor(run: AsyncIterable<TurnEvent>, ms: number): Promise<TurnEvent[]> {
  const done = collectTurnEvents(run);
  await vi.advanceTimersByTimeAsync(ms);
  return done;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('R11.4 upstream time limits, each with its own code', () => {
  it('response headers: a silent route is failed over after its first time-out, not retried', async () => {
    vi.useFakeTimers();
    const { run, wire } = setup({ [PRIMARY]: [{ silent: true }, answer], [SECOND]: [answer] });
    const events = await playFor(run, 2100);
    expect(wire.to(PRIMARY)).toHaveLength(1);
    expect(fallbacksOf(events)[0]).toMatchObject({ reason: 'silent-route', errorCode: 'UPSTREAM_HEADERS_TIMEOUT' });
    expect(textOf(events)).toBe('Fallback answer.');
    expect((await run.result).segments[0]).toMatchObject({ outcome: 'timeout', errorCode: 'UPSTREAM_HEADERS_TIMEOUT', durationMs: 2000 });
  });

  it('response headers with nowhere to go: retried within the budget, then the limit\'s own error, naming its seconds', async () => {
    vi.useFakeTimers();
    const { run, wire } = setup({ [PRIMARY]: [{ silent: true }, { silent: true }, { silent: true }, { silent: true }, { silent: true }] }, { fallbacks: [] });
    const events = await playFor(run, 5 * 2000 + 100);
    expect(wire.requests).toHaveLength(BUDGET.maxAttemptsPerTarget);
    expect(errorsOf(events)[0]).toMatchObject({ kind: 'timeout', code: 'UPSTREAM_HEADERS_TIMEOUT', message: 'The upstream missed its 2 s response-header time limit.' });
  });

  it('first token: headers, then only SSE comments (a queue) — comments are not signs of life', async () => {
    vi.useFakeTimers();
    const comments: ChainReply = { lines: [{ comment: 'keep-alive' }, { comment: 'keep-alive' }, { comment: 'keep-alive' }, { comment: 'keep-alive' }], gapMs: 1000, then: 'hang' };
    const { run, wire } = setup({ [PRIMARY]: [comments], [SECOND]: [answer] });
    const events = await playFor(run, 3100);
    expect(wire.to(PRIMARY)).toHaveLength(1);
    expect(fallbacksOf(events)[0]?.errorCode).toBe('FIRST_TOKEN_TIMEOUT');
    expect(textOf(events)).toBe('Fallback answer.');
  });

  it('a data record (a ping) is a sign of life: a long think with pings survives the stall limit', async () => {
    vi.useFakeTimers();
    const pings: ChainReply = { lines: [{ ping: 1 }, { ping: 1 }, { ping: 1 }, { ping: 1 }, { ping: 1 }, { ping: 1 }, { t: 'Thought long.' }, { end: 'stop' }], gapMs: 3000 };
    const { run, wire } = setup({ [PRIMARY]: [pings] }, { timeLimits: { ...LIMITS, stallAfterOutputMs: 5000 } });
    const events = await playFor(run, 25_000);
    expect(wire.requests).toHaveLength(1);
    expect(textOf(events)).toBe('Thought long.');
    expect(errorsOf(events)).toEqual([]);
  });

  it('stall before output: retryable, failed over at once', async () => {
    vi.useFakeTimers();
    const { run, wire } = setup({ [PRIMARY]: [{ lines: [{ ping: 1 }], then: 'hang' }], [SECOND]: [answer] });
    const events = await playFor(run, 4100);
    expect(wire.to(PRIMARY)).toHaveLength(1);
    expect(fallbacksOf(events)[0]).toMatchObject({ reason: 'stall', errorCode: 'STREAM_STALL' });
  });

  it('stall after visible text: the shorter limit fires; without continuation the turn ends STREAM_STALL, not retryable', async () => {
    vi.useFakeTimers();
    const { run, wire } = setup({ [PRIMARY]: [{ lines: [{ t: 'Twenty tokens in' }], then: 'hang' }], [SECOND]: [answer] });
    const events = await playFor(run, 1600);
    expect(wire.requests).toHaveLength(1);
    expect(errorsOf(events)[0]).toMatchObject({ code: 'STREAM_STALL', retryable: false, message: 'The upstream missed its 1.5 s stall (after output) time limit.' });
    expect((await run.result).segments[0]?.outcome).toBe('timeout');
  });

  it('stall after visible text that followed other records: the after-output limit counts from the last record, not the first', async () => {
    vi.useFakeTimers();
    const { run, wire } = setup({ [PRIMARY]: [{ lines: [{ ping: 1 }, { t: 'Twenty tokens in' }], gapMs: 100, then: 'hang' }] }, { fallbacks: [] });
    const done = collectTurnEvents(run);
    // The text came at 100 ms: the 1.5 s after-output limit fires at 1.6 s, long before the 4 s before-output one.
    await vi.advanceTimersByTimeAsync(1650);
    expect(errorsOf(await done)[0]).toMatchObject({ code: 'STREAM_STALL', message: 'The upstream missed its 1.5 s stall (after output) time limit.' });
    expect(wire.requests).toHaveLength(1);
  });

  it('connect: a connect time-out the transport reports ends under the connect limit\'s code', async () => {
    const { run, wire } = setup({ [PRIMARY]: [{ connectTimeout: true }], [SECOND]: [answer] }, { timeLimits: { ...LIMITS, connectMs: 1000 } });
    const events = await collectTurnEvents(run);
    expect(wire.to(PRIMARY)).toHaveLength(1);
    expect(fallbacksOf(events)[0]).toMatchObject({ reason: 'silent-route', errorCode: 'UPSTREAM_CONNECT_TIMEOUT' });
  });

  it('off unless given: a library turn without timeLimits waits for a slow first token', async () => {
    vi.useFakeTimers();
    const slow: ChainReply = { lines: [{ t: 'late but fine' }, { end: 'stop' }], firstDelayMs: 200_000 };
    const { run, wire } = setup({ [PRIMARY]: [slow] }, { timeLimits: undefined, streamRecovery: false });
    const events = await playFor(run, 200_100);
    expect(wire.requests).toHaveLength(1);
    expect(textOf(events)).toBe('late but fine');
  });

  it('the host\'s abort reaches the chain\'s request in flight, which runs under its own limits', async () => {
    vi.useFakeTimers();
    const host = new AbortController();
    const { run } = setup({ [PRIMARY]: [{ lines: [{ ping: 1 }], gapMs: 100, then: 'hang' }] }, { fallbacks: [], signal: host.signal });
    const done = collectTurnEvents(run);
    await vi.advanceTimersByTimeAsync(500);
    host.abort();
    await vi.advanceTimersByTimeAsync(10);
    const events = await done;
    expect(errorsOf(events)[0]).toMatchObject({ code: 'ABORTED' });
    expect((await run.result).segments).toHaveLength(1);
  });

  it('R4.7: the whole-turn limit spans the chain and names itself', async () => {
    vi.useFakeTimers();
    const { run, wire } = setup({ [PRIMARY]: [{ status: 503 }, { status: 503 }, { status: 503 }], [SECOND]: [{ lines: [{ ping: 1 }], gapMs: 1000, then: 'hang' }] }, {
      timeLimits: {},
      streamRecovery: { turnTimeoutMs: 5000 },
    });
    const events = await playFor(run, 5100);
    expect(wire.requests.length).toBe(4);
    expect(errorsOf(events)[0]).toMatchObject({ kind: 'timeout', code: 'TIMEOUT' });
  });
});

describe('R11.4 a fault-free chain turn makes one abort signal per request', () => {
  it('the request and its body read carry the attempt\'s own signal; the turn\'s is not made', async () => {
    const signalGetter = Object.getOwnPropertyDescriptor(AbortController.prototype, 'signal')!.get!;
    const controllersRead = new Set<AbortController>();
    const spy = vi.spyOn(AbortController.prototype, 'signal', 'get').mockImplementation(function (this: AbortController) {
      controllersRead.add(this);
      return signalGetter.call(this) as AbortSignal;
    });
    try {
      const { run, wire } = setup({ [PRIMARY]: [answer] });
      const events = await collectTurnEvents(run);
      expect(textOf(events)).toBe('Fallback answer.');
      expect(wire.requests).toHaveLength(1);
      // The fake wire makes no controller of its own: the one read is the attempt's (AttemptWatch).
      expect(controllersRead.size).toBe(1);
    } finally {
      spy.mockRestore();
    }
  });
});
