import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TurnEvent } from '../types/turn-event.js';
import { createFakeFetch, fakeAdapter, type FakeNative, type FakeReply } from './fake-wire.test-helper.js';
import { runTurn, type RunTurnOptions } from './run-turn.js';
import type { TurnRecord, UsageSample } from './stats-sink.js';

const MARKER = 'PRIVATE-MARKER-91c2';

function setup(replies: FakeReply[], options: Partial<RunTurnOptions<FakeNative>> = {}) {
  const wire = createFakeFetch(replies);
  const samples: UsageSample[] = [];
  const turns: TurnRecord[] = [];
  const run = runTurn({
    adapter: fakeAdapter,
    request: { model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: `question ${MARKER}` }] }] },
    target: { baseUrl: 'https://upstream.test' },
    fetch: wire.fetch,
    retry: { initialDelayMs: 0, jitterRatio: 0 },
    stats: { recordUsage: (s) => void samples.push(s), recordTurn: (t) => void turns.push(t) },
    ...options,
  });
  return { run, wire, samples, turns };
}

const reasoningCut: FakeReply = { lines: [{ r: `thinking ${MARKER}` }] };
const answer: FakeReply = { lines: [{ t: 'Answer.' }, { end: 'stop' }] };

afterEach(() => {
  vi.useRealTimers();
});

describe('runTurn config (R4.8)', () => {
  it('rejects a limit above its default at call time, naming the option and the default', () => {
    expect(() => setup([], { streamRecovery: { turnTimeoutMs: 600_000 } })).toThrow(
      /turnTimeoutMs.*above its default of 480000/,
    );
    expect(() => setup([], { streamRecovery: { recoveryMaxOutputTokens: 9000 } })).toThrow(/default of 8192/);
    // The message lists the keys that exist, so a typo can be fixed from it alone.
    expect(() => setup([], { streamRecovery: { bogus: 1 } as never })).toThrow(/streamRecovery\.bogus is not a known option; known: enabled, .*recoveriesPerTurn/);
  });

  it('rejects a malformed adapter with a TurnError instead of crashing later', () => {
    expect(() => setup([], { adapter: {} as never })).toThrow(
      expect.objectContaining({ name: 'TurnError', code: 'INVALID_RUN_TURN_OPTION' }),
    );
  });
});

describe('runTurn time limits (R4.7, R4.9) with fake timers', () => {
  it('names the recovery segment limit in seconds when segment 2 hangs, and sends no third request', async () => {
    vi.useFakeTimers();
    const { run, wire } = setup([reasoningCut, { lines: [{ r: 'slow' }], then: 'hang' }, answer], {
      streamRecovery: { recoverySegmentTimeoutMs: 90_000 },
    });
    const done = (async () => {
      for await (const _ of run) {
        /* drain */
      }
    })();
    await vi.advanceTimersByTimeAsync(89_999);
    expect(wire.requests).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    await done;
    const result = await run.result;
    expect(result.error).toMatchObject({
      code: 'STREAM_CUT',
      retryable: false,
      details: { timeLimit: 'recovery-segment', limitSeconds: 90, segment: 2 },
    });
    expect(result.error?.message).toContain('90 s recovery segment time limit');
    expect(result.error?.message).toContain('segment 2');
    expect(wire.requests).toHaveLength(2);
    expect(result.segments.map((s) => s.outcome)).toEqual(['cut', 'timeout']);
  });

  it('names the turn limit when segment 1 hangs, without talking about a recovery', async () => {
    vi.useFakeTimers();
    const { run, wire, turns } = setup([{ lines: [{ r: 'slow' }], then: 'hang' }], {
      streamRecovery: { turnTimeoutMs: 120_000 },
    });
    const settled = run.result.then((result) => result); // awaiting result starts the turn
    await vi.advanceTimersByTimeAsync(120_000);
    const result = await settled;
    expect(result.error).toMatchObject({
      code: 'TIMEOUT',
      details: { timeLimit: 'turn', limitSeconds: 120, segment: 1 },
    });
    expect(result.error?.message).toBe('Segment 1 reached the 120 s turn time limit before its finish frame.');
    expect(wire.requests).toHaveLength(1);
    expect(turns).toHaveLength(1);
  });

  it('lets the recovery segment stop at the remaining turn time when that is shorter (R4.7)', async () => {
    vi.useFakeTimers();
    const { run, wire } = setup([reasoningCut, { lines: [{ r: 'slow' }], then: 'hang' }], {
      streamRecovery: { turnTimeoutMs: 100_000, recoverySegmentTimeoutMs: 90_000 },
    });
    const iterator = run[Symbol.asyncIterator]();
    await iterator.next();
    // Segment 1 takes 20 s (the host pulls slowly), so the recovery starts at 20 s:
    // its own 90 s would end at 110 s, past the turn's 100 s — the turn limit must fire.
    await vi.advanceTimersByTimeAsync(20_000);
    const rest = (async () => {
      for (let step = await iterator.next(); !step.done; step = await iterator.next()) void step;
    })();
    await vi.advanceTimersByTimeAsync(79_999);
    expect(wire.requests).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    await rest;
    const result = await run.result;
    expect(result.error).toMatchObject({ code: 'STREAM_CUT', details: { timeLimit: 'turn', limitSeconds: 100, segment: 2 } });
    expect(wire.requests).toHaveLength(2);
  });

  it('a limit that fires while the host holds recovery-start ends as STREAM_CUT for segment 2, with no request', async () => {
    vi.useFakeTimers();
    const { run, wire, turns } = setup([reasoningCut, answer], { streamRecovery: { turnTimeoutMs: 100_000, recoverySegmentTimeoutMs: 90_000 } });
    const iterator = run[Symbol.asyncIterator]();
    for (let step = await iterator.next(); !step.done; step = await iterator.next()) {
      if (step.value.type === 'recovery-start') break;
    }
    // The host sits on recovery-start past the recovery segment's limit before pulling again.
    await vi.advanceTimersByTimeAsync(100_000);
    const rest = (async () => {
      for (let step = await iterator.next(); !step.done; step = await iterator.next()) void step;
    })();
    await vi.runAllTimersAsync();
    await rest;
    const result = await run.result;
    expect(wire.requests).toHaveLength(1);
    expect(result.error).toMatchObject({ code: 'STREAM_CUT', details: { segment: 2, limitSeconds: 90 } });
    expect(turns).toHaveLength(1);
  });

  it('applies no client-side time limit when streamRecovery is false', async () => {
    vi.useFakeTimers();
    const { run } = setup([{ lines: [{ r: 'slow' }], then: 'hang' }], { streamRecovery: false });
    let settled = false;
    void run.result.then(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(10 * 60 * 60_000);
    expect(settled).toBe(false);
  });
});

describe('runTurn abort and early stop (R4.9, R6.2)', () => {
  it('aborts between segments: no second request, ABORTED', async () => {
    const controller = new AbortController();
    const { run, wire, turns } = setup([reasoningCut, answer], { signal: controller.signal });
    const seen: TurnEvent[] = [];
    for await (const event of run) {
      seen.push(event);
      if (event.type === 'recovery-start') controller.abort();
    }
    const result = await run.result;
    expect(wire.requests).toHaveLength(1);
    expect(result.error).toMatchObject({ kind: 'aborted', code: 'ABORTED' });
    expect(seen.at(-1)).toMatchObject({ type: 'error', error: { code: 'ABORTED' } });
    expect(turns).toEqual([expect.objectContaining({ outcome: 'aborted' })]);
  });

  it('aborts during segment 1: ABORTED, no retry and no recovery', async () => {
    const controller = new AbortController();
    const { run, wire } = setup([{ lines: [{ r: 'a' }], then: 'hang' }, answer], { signal: controller.signal });
    for await (const event of run) if (event.type === 'reasoning-delta') controller.abort();
    expect(wire.requests).toHaveLength(1);
    expect((await run.result).error?.code).toBe('ABORTED');
  });

  it('aborts during the recovery segment: stays ABORTED, never a third request', async () => {
    const controller = new AbortController();
    const { run, wire, samples } = setup([reasoningCut, { lines: [{ t: 'Ans' }], then: 'hang' }, answer], {
      signal: controller.signal,
    });
    for await (const event of run) if (event.type === 'text-delta') controller.abort();
    expect(wire.requests).toHaveLength(2);
    expect((await run.result).error).toMatchObject({ kind: 'aborted', code: 'ABORTED' });
    expect(samples.map((s) => s.errorCode)).toEqual(['STREAM_CUT', 'ABORTED']);
  });

  it('records the turn exactly once when the consumer breaks early, before return() resolves', async () => {
    const { run, wire, turns, samples } = setup([{ lines: [{ r: 'a' }, { r: 'b' }], then: 'hang' }]);
    for await (const event of run) {
      if (event.type === 'reasoning-delta') break;
    }
    expect(turns).toEqual([expect.objectContaining({ outcome: 'aborted', errorCode: 'ABORTED' })]);
    expect(samples).toHaveLength(1);
    expect(wire.requests).toHaveLength(1);
    expect((await run.result).error?.code).toBe('ABORTED');
  });

  it('an already-aborted retry.signal stops the turn like the host signal: ABORTED, no request (R1.6)', async () => {
    const { run, wire, turns } = setup([answer], { retry: { initialDelayMs: 0, jitterRatio: 0, signal: AbortSignal.abort('interrupt') } });
    const result = await run.result;
    expect(result.error).toMatchObject({ kind: 'aborted', code: 'ABORTED' });
    expect(wire.requests).toHaveLength(0);
    expect(turns).toEqual([expect.objectContaining({ outcome: 'aborted' })]);
  });

  it('records an aborted turn without any request when return() comes before the first pull', async () => {
    const { run, wire, turns } = setup([answer]);
    await run[Symbol.asyncIterator]().return?.();
    expect(wire.requests).toHaveLength(0);
    expect(turns).toEqual([expect.objectContaining({ outcome: 'aborted', physicalRequests: 0 })]);
  });

  it('runs the turn when only result is awaited', async () => {
    const { run, turns } = setup([answer]);
    expect((await run.result).outcome).toBe('ok');
    expect(turns).toHaveLength(1);
  });
});

describe('runTurn privacy and warnings (R4.10, R4.11)', () => {
  it('keeps prompt and checkpoint text out of samples, turn records, warnings and errors', async () => {
    const { run, samples, turns } = setup([reasoningCut, { lines: [{ t: ' ' }, { end: 'stop' }] }], {
      warnings: ['image-dropped: part 2 could not be read'],
    });
    const events: TurnEvent[] = [];
    for await (const event of run) events.push(event);
    const result = await run.result;
    const outward = JSON.stringify({
      samples,
      turns,
      warnings: result.warnings,
      error: [result.error?.message, result.error?.details],
    });
    expect(outward).not.toContain(MARKER);
    expect(events.filter((e) => e.type === 'warning')).toHaveLength(1);
    expect(samples.map((s) => s.warnings)).toEqual([
      ['image-dropped: part 2 could not be read'],
      ['image-dropped: part 2 could not be read'],
    ]);
    expect(Object.isFrozen(samples[0]!.warnings)).toBe(true);
  });
});
