import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sleep } from './sleep.js';
import { TurnError } from '../errors/turn-error.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function track(promise: Promise<void>): { state: () => string; error: () => unknown } {
  let state = 'pending';
  let error: unknown;
  promise.then(
    () => {
      state = 'resolved';
    },
    (reason: unknown) => {
      state = 'rejected';
      error = reason;
    },
  );
  return { state: () => state, error: () => error };
}

describe('sleep (R1.6, R1.11)', () => {
  it('resolves after exactly the given time', async () => {
    const sleeping = track(sleep(1000));
    await vi.advanceTimersByTimeAsync(999);
    expect(sleeping.state()).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(sleeping.state()).toBe('resolved');
  });

  it('R1.6 an abort ends the sleep at once with the ABORTED TurnError', async () => {
    const controller = new AbortController();
    const sleeping = track(sleep(60_000, { signal: controller.signal }));
    await vi.advanceTimersByTimeAsync(10);
    controller.abort('interrupt');
    await vi.advanceTimersByTimeAsync(0);
    expect(sleeping.state()).toBe('rejected');
    const error = sleeping.error() as TurnError;
    expect([TurnError.isInstance(error), error.code, error.details['abortReason']]).toEqual([true, 'ABORTED', 'interrupt']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('R1.6 an already-aborted signal rejects without waiting', async () => {
    const sleeping = track(sleep(5000, { signal: AbortSignal.abort() }));
    await vi.advanceTimersByTimeAsync(0);
    expect(sleeping.state()).toBe('rejected');
  });

  it('R1.11 emits a heartbeat every 30 s while time is left', async () => {
    const beats: Array<{ waitedMs: number; remainingMs: number }> = [];
    const sleeping = track(sleep(100_000, { onHeartbeat: (beat) => beats.push(beat) }));
    await vi.advanceTimersByTimeAsync(29_999);
    expect(beats).toEqual([]);
    await vi.advanceTimersByTimeAsync(70_001);
    expect(beats).toEqual([
      { waitedMs: 30_000, remainingMs: 70_000 },
      { waitedMs: 60_000, remainingMs: 40_000 },
      { waitedMs: 90_000, remainingMs: 10_000 },
    ]);
    expect(sleeping.state()).toBe('resolved');
  });
});

describe('sleep beyond the timer limit (R1.3)', () => {
  it('waits the whole of a server wait longer than 2^31-1 ms instead of firing at once', async () => {
    const thirtyDaysMs = 30 * 24 * 3_600_000;
    const wait = track(sleep(thirtyDaysMs));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(wait.state()).toBe('pending');
    await vi.advanceTimersByTimeAsync(thirtyDaysMs - 2_000);
    expect(wait.state()).toBe('pending');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(wait.state()).toBe('resolved');
  });
});
