import type { ProtocolAdapter } from '../adapter/protocol-adapter.js';
import type { TurnError } from '../errors/turn-error.js';
import { computeResizedMaxOutputTokens, readContextOverflow } from '../retry/context-overflow.js';
import type { RetryReason } from '../retry/plan-retry.js';
import { applyRefreshedCredentials } from '../retry/refreshed-credentials.js';
import { DEFAULT_HEARTBEAT_INTERVAL_MS, sleep } from '../retry/sleep.js';
import type { RetryEvent } from '../retry/with-retry.js';
import type { Turn } from './turn.js';

/** One retry of a chain's destination, as R1.5 shows it. */
export interface ChainRetry {
  reason: RetryReason;
  delayMs: number;
  /** The failure that led to it. */
  error: TurnError;
  /** The request id of the attempt that failed, and the one the next attempt carries. */
  attempt: string;
  nextAttempt: string;
  /** 1 for the first retry on this destination (decision 0262). */
  retryNumber: number;
}

/**
 * A chain's retry (R1.5, R1.6, R1.7): the `retry` event before the wait, the
 * wait (abortable, with R1.11's heartbeats when it is long), and R1.7's
 * credential refresh. Resolves with the error that ends the turn (an abort,
 * a refresh that failed), or undefined to go on.
 */
export async function planChainRetry<Native extends object>(turn: Turn<Native>, retry: ChainRetry): Promise<TurnError | undefined> {
  const { error } = retry;
  const event: RetryEvent = {
    retryNumber: retry.retryNumber,
    attempt: retry.retryNumber,
    delayMs: retry.delayMs,
    kind: error.kind,
    code: error.code,
    status: error.status,
    attemptId: retry.nextAttempt,
    previousAttemptId: retry.attempt,
    reason: retry.reason,
  };
  turn.events.post({ type: 'retry', ...event });
  try {
    turn.options.retry.onRetry?.(event);
  } catch {
    // A UI listener that throws must not change what the retry layer does (R1.5).
  }
  const stopped = await waitForChain(turn, retry.delayMs);
  if (stopped !== undefined) return stopped;
  if (retry.reason !== 'auth_refresh') return undefined;
  try {
    turn.target = applyRefreshedCredentials(turn.target, await turn.options.retry.refreshCredentials!());
    return undefined;
  } catch (refreshError) {
    // The host's hook failed: the 401/403 stands, with the hook's error beside it.
    return error.with({ details: { ...error.details, credentialRefreshFailed: true }, cause: refreshError });
  }
}

/** A chain's wait (a backoff, a burst floor): the turn's stop ends it at once (R1.6). Resolves with the stop's error, if any. */
export async function waitForChain<Native extends object>(turn: Turn<Native>, delayMs: number): Promise<TurnError | undefined> {
  if (delayMs > 0) {
    const { onHeartbeat, heartbeatIntervalMs } = turn.options.retry;
    try {
      await sleep(delayMs, {
        signal: turn.signal,
        heartbeatIntervalMs: heartbeatIntervalMs ?? DEFAULT_HEARTBEAT_INTERVAL_MS,
        onHeartbeat: (beat) => {
          turn.events.post({ type: 'heartbeat', waitedMs: beat.waitedMs, remainingMs: beat.remainingMs });
          onHeartbeat?.(beat);
        },
      });
    } catch {
      // Only an abort ends a sleep early; the stop says which.
    }
  }
  return turn.stopError();
}

/** R1.8: "input + max_tokens > limit" is fixed on the same destination by a smaller `max_tokens`. */
export function resizeForOverflow(adapter: ProtocolAdapter<object>, native: object, error: TurnError, hostThinkingBudget: number | undefined): object {
  const overflow = readContextOverflow(error);
  if (overflow === undefined) return native;
  const thinkingBudget = overflow.thinkingBudget ?? hostThinkingBudget ?? adapter.getThinkingBudget?.(native);
  return adapter.withMaxOutputTokens(native, computeResizedMaxOutputTokens(thinkingBudget === undefined ? overflow : { ...overflow, thinkingBudget }));
}
