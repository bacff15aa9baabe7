import type { TurnError } from '../errors/turn-error.js';
import { ExponentialBackoff } from './backoff.js';
import { computeResizedMaxOutputTokens, readContextOverflow } from './context-overflow.js';
import { FallbackSignal } from './fallback-signal.js';

/** Why the next attempt happens; shown on `RetryEvent.reason`. */
export type RetryReason = 'backoff' | 'server_directed' | 'rate_limit_reset' | 'auth_refresh' | 'context_overflow_resize';

export interface RetryPolicy {
  maxRetries: number;
  maxServerWaitMs: number | undefined;
  deadlineAt: number | undefined;
  fallbackModel: string | undefined;
  overloadsBeforeFallback: number;
  unattended: boolean;
  unattendedMaxTotalMs: number;
  canRefreshCredentials: boolean;
  thinkingBudget: number | undefined;
}

/** What one `withRetry` call remembers between attempts; owned and mutated by that call only. */
export interface RetryState {
  startedAt: number;
  /** Retries that count against `maxRetries` (unattended 429/529 do not). */
  countedRetries: number;
  consecutiveOverloads: number;
  credentialsRefreshed: boolean;
  maxOutputTokensOverride: number | undefined;
  backoff: ExponentialBackoff;
  /** R1.11: the same curve, capped at 5 min, for unattended 429/529. */
  unattendedBackoff: ExponentialBackoff;
}

export type RetryPlan =
  | { action: 'retry'; delayMs: number; reason: RetryReason; refreshCredentials: boolean }
  | { action: 'throw'; error: TurnError };

/**
 * The decision after a failed attempt, as a flat list of rules in the order
 * they must win (R1.2 → R1.8 → R1.7 → R1.9 → R1.1/R1.3/R1.4/R1.11).
 * Updates `state` for the retry it plans.
 */
export function planRetry(error: TurnError, state: RetryState, policy: RetryPolicy, nowMs: number): RetryPlan {
  // R1.6: an abort is never retried.
  if (error.kind === 'aborted') return { action: 'throw', error };

  // R1.8: an "A + B > C" overflow is fixed by a smaller max_tokens, not thrown.
  const overflow = readContextOverflow(error);
  if (overflow !== undefined) {
    if (state.countedRetries >= policy.maxRetries) return { action: 'throw', error };
    const thinkingBudget = overflow.thinkingBudget ?? policy.thinkingBudget;
    state.countedRetries += 1;
    state.consecutiveOverloads = 0;
    state.maxOutputTokensOverride = computeResizedMaxOutputTokens(
      thinkingBudget === undefined ? overflow : { ...overflow, thinkingBudget },
    );
    return { action: 'retry', delayMs: 0, reason: 'context_overflow_resize', refreshCredentials: false };
  }

  // R1.7: one credential refresh and one retry; a second 401/403 fails. Only an
  // `auth` failure qualifies: a 403 an adapter refined into a region refusal or
  // a content filter is final (R1.2) and must not trigger a re-login.
  if (error.kind === 'auth') {
    if (!policy.canRefreshCredentials || state.credentialsRefreshed) return { action: 'throw', error };
    state.credentialsRefreshed = true;
    state.consecutiveOverloads = 0;
    return { action: 'retry', delayMs: 0, reason: 'auth_refresh', refreshCredentials: true };
  }

  // R1.9: only CONSECUTIVE overloads count toward the fallback.
  state.consecutiveOverloads = error.kind === 'overloaded' ? state.consecutiveOverloads + 1 : 0;
  if (policy.fallbackModel !== undefined && state.consecutiveOverloads >= policy.overloadsBeforeFallback) {
    return {
      action: 'throw',
      error: new FallbackSignal({
        fallbackModel: policy.fallbackModel,
        consecutiveOverloads: state.consecutiveOverloads,
        lastError: error,
      }),
    };
  }

  // R1.2: 400/404/413…, STREAM_CUT (output already reached the consumer) and anything else not retryable.
  if (!error.retryable) return { action: 'throw', error };

  // R1.11: unattended mode retries 429/529 without a count limit.
  const unlimited = policy.unattended && (error.kind === 'rate_limit' || error.kind === 'overloaded');
  if (!unlimited && state.countedRetries >= policy.maxRetries) return { action: 'throw', error };

  const wait = chooseWait(error, state, policy, nowMs);
  if (wait.serverDirected && policy.maxServerWaitMs !== undefined && wait.delayMs > policy.maxServerWaitMs) {
    // R1.3: too long a server wait fails at once with the error that asked for it.
    return { action: 'throw', error };
  }
  if (policy.deadlineAt !== undefined && nowMs + wait.delayMs > policy.deadlineAt) {
    // R1.3: never sleep past the deadline only to fail after it.
    return { action: 'throw', error };
  }
  if (policy.unattended && nowMs - state.startedAt + wait.delayMs > policy.unattendedMaxTotalMs) {
    return { action: 'throw', error };
  }
  if (!unlimited) state.countedRetries += 1;
  wait.commit();
  return { action: 'retry', delayMs: wait.delayMs, reason: wait.reason, refreshCredentials: false };
}

interface ChosenWait {
  delayMs: number;
  reason: RetryReason;
  serverDirected: boolean;
  /** Advances the backoff value only when the retry really happens. */
  commit: () => void;
}

function chooseWait(error: TurnError, state: RetryState, policy: RetryPolicy, nowMs: number): ChosenWait {
  const noop = (): void => {};
  // R1.3: the server's wait is honoured exactly on 429/529/503 only.
  const honoursServerWait = error.kind === 'rate_limit' || error.kind === 'overloaded' || error.status === 503;
  if (honoursServerWait && error.retryAfterMs !== undefined) {
    return { delayMs: error.retryAfterMs, reason: 'server_directed', serverDirected: true, commit: noop };
  }
  const unlimited = policy.unattended && (error.kind === 'rate_limit' || error.kind === 'overloaded');
  if (unlimited) {
    // R1.11: sleep to the rate-limit window's reset when the headers name one.
    const resetAt = error.details['rateLimitResetAt'];
    if (typeof resetAt === 'number' && resetAt > nowMs) {
      return { delayMs: resetAt - nowMs, reason: 'rate_limit_reset', serverDirected: true, commit: noop };
    }
    const next = state.unattendedBackoff.next();
    return {
      delayMs: next.delayMs,
      reason: 'backoff',
      serverDirected: false,
      commit: () => {
        state.unattendedBackoff = next;
      },
    };
  }
  const next = state.backoff.next();
  return {
    delayMs: next.delayMs,
    reason: 'backoff',
    serverDirected: false,
    commit: () => {
      state.backoff = next;
    },
  };
}
