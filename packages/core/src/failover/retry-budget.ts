/**
 * How patient a chain of attempts is with retryable failures, as data
 * (R1.4, R1.9, R11.3). The library keeps R1.4's unattended patience; the
 * gateway's client is interactive and gives up in tens of seconds, so its
 * budget ends a persistent 429/5xx well inside 30 s (decision 0406).
 */
export interface RetryBudget {
  /** Physical attempts on one target, the first included. */
  maxAttemptsPerTarget: number;
  /** With a next target: this many consecutive counted failures on a target fail over (R1.9, widened by R11.3). */
  failOverAfter: number;
  /** R1.9 counts overloads only; R11.3 counts every retryable failure. */
  failOverCounts: 'overloads' | 'retryable';
  /** Backoff: `min(maxDelayMs, initialDelayMs × factor^(n-1))` plus up to `jitterRatio` of it (R1.4's shape). */
  initialDelayMs: number;
  maxDelayMs: number;
  factor: number;
  jitterRatio: number;
  /** No retry starts later than this after the turn's first attempt; `undefined`: no window. */
  retryWindowMs: number | undefined;
  /** Never more than `attempts` physical attempts within the first `windowMs` of the turn ("never hammering"). */
  burst: { attempts: number; windowMs: number } | undefined;
  /** A server-directed wait (Retry-After) longer than this is not waited for; `undefined`: only the window caps it. */
  maxServerWaitMs: number | undefined;
}

/** R1.4 (10 retries, 500 ms doubling to 32 s, 25 % jitter) and R1.9 (3 overloads before the fallback). */
export const LIBRARY_RETRY_BUDGET: RetryBudget = Object.freeze({
  maxAttemptsPerTarget: 11,
  failOverAfter: 3,
  failOverCounts: 'overloads',
  initialDelayMs: 500,
  maxDelayMs: 32_000,
  factor: 2,
  jitterRatio: 0.25,
  retryWindowMs: undefined,
  burst: undefined,
  maxServerWaitMs: undefined,
});

/**
 * R11.3, for a client that waits in front of the gateway: attempts at about
 * 0, 1, 3, 7 and 15 s on one target (at most 4 in the first 3 s), no retry
 * started after 20 s, so a persistent 429/5xx ends by ~20 s plus one
 * request; with a fallback, 3 consecutive retryable failures fail over.
 */
export const INTERACTIVE_RETRY_BUDGET: RetryBudget = Object.freeze({
  maxAttemptsPerTarget: 5,
  failOverAfter: 3,
  failOverCounts: 'retryable',
  initialDelayMs: 1000,
  maxDelayMs: 8000,
  factor: 2,
  jitterRatio: 0.25,
  retryWindowMs: 20_000,
  burst: { attempts: 4, windowMs: 3000 },
  maxServerWaitMs: 15_000,
});

/** What the budget needs to know about the chain so far. */
export interface RetryHistory {
  /** Epoch ms when the turn's first physical attempt started. */
  turnStartedAt: number;
  /** Start times (epoch ms) of every physical attempt of the turn, on any target, this one included. */
  attemptStartTimes: readonly number[];
  /** Failed attempts on the current target, this one included. */
  attemptsOnTarget: number;
  /** Consecutive failures on the current target that count toward `failOverAfter`, this one included. */
  consecutiveCountedFailures: number;
}

export type BudgetVerdict =
  | { verdict: 'retry'; delayMs: number; serverDirected: boolean }
  | { verdict: 'give-up'; reason: 'fail-over-threshold' | 'attempts' | 'window' | 'server-wait' };

/** Backoff delay before retry `retryNumber` (1-based), jitter drawn from `random` (clamped to [0, 1]). */
export function computeBackoffDelayMs(budget: RetryBudget, retryNumber: number, random: () => number): number {
  const capped = Math.min(budget.maxDelayMs, budget.initialDelayMs * budget.factor ** (retryNumber - 1));
  const draw = random();
  const unit = Number.isFinite(draw) ? Math.min(1, Math.max(0, draw)) : 0;
  return Math.round(capped + capped * budget.jitterRatio * unit);
}

/** The earliest start that keeps the burst rule: the `attempts`-th attempt waits until the burst window has passed. */
function burstFloor(budget: RetryBudget, history: RetryHistory): number {
  if (budget.burst === undefined) return 0;
  const windowEnd = history.turnStartedAt + budget.burst.windowMs;
  const inWindow = history.attemptStartTimes.filter((time) => time < windowEnd).length;
  return inWindow >= budget.burst.attempts ? windowEnd : 0;
}

/**
 * How long a fail-over waits so that the burst rule holds across targets
 * too: 0 unless this would be one attempt too many in the first window.
 */
export function computeBurstDelayMs(budget: RetryBudget, history: RetryHistory, nowMs: number): number {
  return Math.max(0, burstFloor(budget, history) - nowMs);
}

/**
 * Whether a retryable failure gets another attempt on the same target, and
 * after how long (R1.3, R1.4, R1.9, R11.3). Pure: the caller counts, this
 * decides. `retryAfterMs` is the server's wait (429/529/503), honoured
 * exactly unless the budget cannot afford it.
 */
export function planBudgetedRetry(
  budget: RetryBudget,
  history: RetryHistory,
  facts: { hasNextTarget: boolean; retryAfterMs: number | undefined; nowMs: number },
  random: () => number = Math.random,
): BudgetVerdict {
  if (facts.hasNextTarget && history.consecutiveCountedFailures >= budget.failOverAfter) {
    return { verdict: 'give-up', reason: 'fail-over-threshold' };
  }
  if (history.attemptsOnTarget >= budget.maxAttemptsPerTarget) return { verdict: 'give-up', reason: 'attempts' };
  const serverDirected = facts.retryAfterMs !== undefined;
  if (serverDirected && budget.maxServerWaitMs !== undefined && facts.retryAfterMs! > budget.maxServerWaitMs) {
    return { verdict: 'give-up', reason: 'server-wait' };
  }
  const wanted = serverDirected ? facts.retryAfterMs! : computeBackoffDelayMs(budget, history.attemptsOnTarget, random);
  const startAt = Math.max(facts.nowMs + wanted, burstFloor(budget, history));
  if (budget.retryWindowMs !== undefined && startAt > history.turnStartedAt + budget.retryWindowMs) {
    return { verdict: 'give-up', reason: serverDirected ? 'server-wait' : 'window' };
  }
  return { verdict: 'retry', delayMs: startAt - facts.nowMs, serverDirected };
}
