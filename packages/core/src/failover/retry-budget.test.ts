import { describe, expect, it } from 'vitest';
import { DEFAULT_BACKOFF_FACTOR, DEFAULT_INITIAL_DELAY_MS, DEFAULT_JITTER_RATIO, DEFAULT_MAX_DELAY_MS, DEFAULT_MAX_RETRIES, DEFAULT_OVERLOADS_BEFORE_FALLBACK } from '../retry/index.js';
import {
  INTERACTIVE_RETRY_BUDGET,
  LIBRARY_RETRY_BUDGET,
  computeBackoffDelayMs,
  computeBurstDelayMs,
  planBudgetedRetry,
  type RetryBudget,
  type RetryHistory,
} from './retry-budget.js';

const noJitter = (): number => 0;
const fullJitter = (): number => 1;

/**
 * Plays a target that fails every attempt at once (each request takes
 * `requestMs`), returning the start time of every attempt until the budget
 * gives up: the schedule a client would see.
 */
function playPersistentFailure(
  budget: RetryBudget,
  options: { hasNextTarget: boolean; retryAfterMs?: number; requestMs?: number; random?: () => number },
): { starts: number[]; gaveUp: string } {
  const starts = [0];
  let now = 0;
  for (;;) {
    now += options.requestMs ?? 0;
    const history: RetryHistory = { turnStartedAt: 0, attemptStartTimes: starts, attemptsOnTarget: starts.length, consecutiveCountedFailures: starts.length };
    const verdict = planBudgetedRetry(budget, history, { hasNextTarget: options.hasNextTarget, retryAfterMs: options.retryAfterMs, nowMs: now }, options.random ?? noJitter);
    if (verdict.verdict === 'give-up') return { starts, gaveUp: verdict.reason };
    now += verdict.delayMs;
    starts.push(now);
  }
}

describe('R1.4 / R11.3 retry budgets', () => {
  it('the library budget is R1.4 and R1.9, read from the retry layer\'s own constants', () => {
    expect(LIBRARY_RETRY_BUDGET).toMatchObject({
      maxAttemptsPerTarget: DEFAULT_MAX_RETRIES + 1,
      failOverAfter: DEFAULT_OVERLOADS_BEFORE_FALLBACK,
      failOverCounts: 'overloads',
      initialDelayMs: DEFAULT_INITIAL_DELAY_MS,
      maxDelayMs: DEFAULT_MAX_DELAY_MS,
      factor: DEFAULT_BACKOFF_FACTOR,
      jitterRatio: DEFAULT_JITTER_RATIO,
      retryWindowMs: undefined,
    });
  });

  it('backoff is min(max, initial × factor^(n-1)) plus up to the jitter ratio of it', () => {
    expect([1, 2, 3, 4, 5].map((n) => computeBackoffDelayMs(INTERACTIVE_RETRY_BUDGET, n, noJitter))).toEqual([1000, 2000, 4000, 8000, 8000]);
    expect(computeBackoffDelayMs(INTERACTIVE_RETRY_BUDGET, 1, fullJitter)).toBe(1250);
    expect(computeBackoffDelayMs(INTERACTIVE_RETRY_BUDGET, 1, () => Number.NaN)).toBe(1000);
    expect(computeBackoffDelayMs(LIBRARY_RETRY_BUDGET, 7, noJitter)).toBe(32_000);
  });

  it.each([
    ['no jitter, instant failures', noJitter, 0],
    ['full jitter, instant failures', fullJitter, 0],
    ['full jitter, 2 s requests', fullJitter, 2000],
  ])('interactive, no fallback, persistent 429 (%s): gives up well inside 30 s, never more than 4 attempts in 3 s', (_name, random, requestMs) => {
    const { starts, gaveUp } = playPersistentFailure(INTERACTIVE_RETRY_BUDGET, { hasNextTarget: false, random, requestMs });
    const endedAt = starts.at(-1)! + requestMs;
    expect(endedAt).toBeLessThanOrEqual(25_000);
    expect(starts.filter((start) => start < 3000).length).toBeLessThanOrEqual(4);
    expect(starts.length).toBeGreaterThanOrEqual(3);
    expect(['attempts', 'window']).toContain(gaveUp);
  });

  it('interactive, no jitter: attempts at 0, 1, 3, 7 and 15 s', () => {
    expect(playPersistentFailure(INTERACTIVE_RETRY_BUDGET, { hasNextTarget: false }).starts).toEqual([0, 1000, 3000, 7000, 15_000]);
  });

  it('with a fallback, 3 consecutive retryable failures fail over (R11.3)', () => {
    const { starts, gaveUp } = playPersistentFailure(INTERACTIVE_RETRY_BUDGET, { hasNextTarget: true });
    expect(starts).toEqual([0, 1000, 3000]);
    expect(gaveUp).toBe('fail-over-threshold');
  });

  it('Retry-After is honoured exactly while the budget affords it', () => {
    const history: RetryHistory = { turnStartedAt: 0, attemptStartTimes: [0], attemptsOnTarget: 1, consecutiveCountedFailures: 1 };
    expect(planBudgetedRetry(INTERACTIVE_RETRY_BUDGET, history, { hasNextTarget: false, retryAfterMs: 2000, nowMs: 100 })).toEqual({
      verdict: 'retry',
      delayMs: 2000,
      serverDirected: true,
    });
  });

  it('a Retry-After longer than the budget is not waited for: give up (the caller fails over or ends)', () => {
    const history: RetryHistory = { turnStartedAt: 0, attemptStartTimes: [0], attemptsOnTarget: 1, consecutiveCountedFailures: 1 };
    const facts = { hasNextTarget: false, nowMs: 100 };
    expect(planBudgetedRetry(INTERACTIVE_RETRY_BUDGET, history, { ...facts, retryAfterMs: 60_000 })).toEqual({ verdict: 'give-up', reason: 'server-wait' });
    // Within maxServerWaitMs but past the 20 s window.
    const late = { ...history, turnStartedAt: -10_000 };
    expect(planBudgetedRetry(INTERACTIVE_RETRY_BUDGET, late, { ...facts, retryAfterMs: 12_000 })).toEqual({ verdict: 'give-up', reason: 'server-wait' });
  });

  it('a Retry-After of 0 cannot hammer: the 5th attempt inside 3 s waits for the window to pass', () => {
    const { starts } = playPersistentFailure({ ...INTERACTIVE_RETRY_BUDGET, maxAttemptsPerTarget: 8 }, { hasNextTarget: false, retryAfterMs: 0, requestMs: 100 });
    expect(starts.filter((start) => start < 3000).length).toBe(4);
    expect(starts[4]).toBe(3000);
  });

  it('the burst rule holds across targets too', () => {
    const history: RetryHistory = { turnStartedAt: 0, attemptStartTimes: [0, 100, 200, 300], attemptsOnTarget: 1, consecutiveCountedFailures: 1 };
    expect(computeBurstDelayMs(INTERACTIVE_RETRY_BUDGET, history, 400)).toBe(2600);
    expect(computeBurstDelayMs(INTERACTIVE_RETRY_BUDGET, { ...history, attemptStartTimes: [0, 100, 200] }, 400)).toBe(0);
    expect(computeBurstDelayMs(LIBRARY_RETRY_BUDGET, history, 400)).toBe(0);
  });

  it('the library budget keeps R1.4\'s patience: 11 attempts, no window', () => {
    const { starts, gaveUp } = playPersistentFailure(LIBRARY_RETRY_BUDGET, { hasNextTarget: false });
    expect(starts).toHaveLength(11);
    expect(gaveUp).toBe('attempts');
  });
});
