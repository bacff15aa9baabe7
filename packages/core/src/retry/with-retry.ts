import { TurnError } from '../errors/turn-error.js';
import type { RefreshCredentialsHook } from './refreshed-credentials.js';
import { classifyThrownError } from '../errors/classify-thrown-error.js';
import { createAbortedError } from '../errors/create-aborted-error.js';
import { DEFAULT_INITIAL_DELAY_MS, DEFAULT_JITTER_RATIO, DEFAULT_MAX_DELAY_MS, ExponentialBackoff } from './backoff.js';
import { attachDebugDump, type DebugDumpOptions } from './debug-dump.js';
import { planRetry, type RetryPolicy, type RetryReason, type RetryState } from './plan-retry.js';
import { DEFAULT_HEARTBEAT_INTERVAL_MS, sleep, type HeartbeatEvent } from './sleep.js';
import { createRandomId } from '../internal/random-id.js';

export const DEFAULT_MAX_RETRIES = 10;
/** R1.9: consecutive overloads before the fallback signal. */
export const DEFAULT_OVERLOADS_BEFORE_FALLBACK = 3;
/** R1.11: unattended backoff cap (5 min) and total cap (6 h). */
export const DEFAULT_UNATTENDED_MAX_DELAY_MS = 5 * 60_000;
export const DEFAULT_UNATTENDED_MAX_TOTAL_MS = 6 * 60 * 60_000;

export interface AttemptContext {
  /** 0 for the first physical try, 1 for the first retry … */
  attempt: number;
  /** Unique per physical attempt. */
  attemptId: string;
  /** The attempt this one retries. */
  previousAttemptId: string | undefined;
  /** Aborts when the caller's signal aborts. */
  signal: AbortSignal;
  /** Set by the R1.8 resize; stays set for every later attempt. */
  maxOutputTokensOverride: number | undefined;
}

/** R1.5: one per retry, emitted before the wait. */
export interface RetryEvent {
  /** Which retry this is: 1 for the first (decision 0262). Not a segment: samples' `attempt` is the segment (0/1, R6.1). */
  retryNumber: number;
  /**
   * The same number as `retryNumber`.
   * @deprecated "attempt" names the segment in stats samples; read `retryNumber` (decision 0262).
   */
  attempt: number;
  delayMs: number;
  kind: string;
  code: string;
  status: number | undefined;
  /** Id the next attempt will carry. */
  attemptId: string;
  /** Id of the attempt that just failed. */
  previousAttemptId: string;
  /** Why this retry and wait were chosen. */
  reason?: RetryReason;
}

export interface RetryOptions {
  maxRetries?: number;
  initialDelayMs?: number;
  maxDelayMs?: number;
  jitterRatio?: number;
  random?: () => number;
  /** A server wait above this fails at once with the rate-limit error carrying retryAfterMs. */
  maxServerWaitMs?: number;
  /** A wait past the deadline fails at once (R1.3). */
  deadlineAt?: number;
  now?: () => number;
  signal?: AbortSignal;
  /** R1.5: every retry is visible. */
  onRetry?: (event: RetryEvent) => void;
  /** R1.11: called at least every `heartbeatIntervalMs` (30 s) during any wait, whenever given. */
  onHeartbeat?: (event: HeartbeatEvent) => void;
  /** R1.7: called once after an auth failure; may return the new credentials (runTurn sends them from then on). */
  refreshCredentials?: RefreshCredentialsHook;
  /** R1.9: set → FallbackSignal after 3 consecutive overloads. */
  fallbackModel?: string;
  /** R1.11 */
  unattended?: boolean;
  /** R1.10 */
  debugDump?: DebugDumpOptions;
  createAttemptId?: () => string;
  /** R1.8: the request's thinking budget, used when the overflow error does not carry one. */
  thinkingBudget?: number;
  overloadsBeforeFallback?: number;
  unattendedMaxDelayMs?: number;
  unattendedMaxTotalMs?: number;
  heartbeatIntervalMs?: number;
}

/**
 * Runs `operation` until it succeeds or the R1 rules say stop. The operation
 * reports failure by throwing — a TurnError, or anything, which is then
 * classified (R2.1). Output already handed to the consumer must surface as a
 * non-retryable `STREAM_CUT`, so it is never resent (R1.2).
 */
export async function withRetry<T>(
  operation: (context: AttemptContext) => Promise<T>,
  options: RetryOptions = {},
): Promise<T> {
  const now = options.now ?? Date.now;
  const createAttemptId = options.createAttemptId ?? createRandomAttemptId;
  const { signal } = options;
  const startedAt = now();
  // Built on the first failure: most turns' first attempt streams, and an open
  // stream should not hold retry state it never uses (per-stream memory, R8).
  let retry: { policy: RetryPolicy; state: RetryState } | undefined;

  let attemptId = createAttemptId();
  let previousAttemptId: string | undefined;
  for (let attempt = 0; ; attempt += 1) {
    // No request is sent after an abort (R1.6, R3.10).
    if (signal?.aborted) throw createAbortedError(signal.reason);

    let error: TurnError;
    const attemptSignal = new AttemptSignal(signal);
    try {
      return await operation(
        createAttemptContext(attempt, attemptId, previousAttemptId, attemptSignal, retry?.state.maxOutputTokensOverride),
      );
    } catch (thrown) {
      // Whatever the operation threw while the caller was aborting is the abort (R1.6).
      error = signal?.aborted ? toAbortedError(signal.reason, thrown) : classifyThrownError(thrown);
    } finally {
      attemptSignal.release();
    }

    retry ??= { policy: resolvePolicy(options), state: createInitialState(options, startedAt) };
    const plan = planRetry(error, retry.state, retry.policy, now());
    if (plan.action === 'throw') throw await prepareThrownError(plan.error, options, now());

    const nextAttemptId = createAttemptId();
    emitRetry(options.onRetry, {
      retryNumber: attempt + 1,
      attempt: attempt + 1,
      delayMs: plan.delayMs,
      kind: error.kind,
      code: error.code,
      status: error.status,
      attemptId: nextAttemptId,
      previousAttemptId: attemptId,
      reason: plan.reason,
    });
    if (plan.delayMs > 0) await waitBeforeRetry(plan.delayMs, options);
    if (plan.refreshCredentials) await refreshCredentialsOrThrow(options, error);
    previousAttemptId = attemptId;
    attemptId = nextAttemptId;
  }
}

/** The backoff or server-directed wait; an abort ends it at once (R1.6), heartbeats tell it is alive (R1.11). */
function waitBeforeRetry(delayMs: number, options: RetryOptions): Promise<void> {
  const { signal, onHeartbeat } = options;
  return sleep(delayMs, {
    ...(signal === undefined ? {} : { signal }),
    ...(onHeartbeat === undefined ? {} : { onHeartbeat }),
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? DEFAULT_HEARTBEAT_INTERVAL_MS,
  });
}

function resolvePolicy(options: RetryOptions): RetryPolicy {
  return {
    maxRetries: countOrDefault(options.maxRetries, DEFAULT_MAX_RETRIES),
    maxServerWaitMs: options.maxServerWaitMs,
    deadlineAt: options.deadlineAt,
    fallbackModel: options.fallbackModel,
    overloadsBeforeFallback: Math.max(1, countOrDefault(options.overloadsBeforeFallback, DEFAULT_OVERLOADS_BEFORE_FALLBACK)),
    unattended: options.unattended === true,
    unattendedMaxTotalMs: countOrDefault(options.unattendedMaxTotalMs, DEFAULT_UNATTENDED_MAX_TOTAL_MS),
    canRefreshCredentials: options.refreshCredentials !== undefined,
    thinkingBudget: options.thinkingBudget,
  };
}

function createInitialState(options: RetryOptions, startedAt: number): RetryState {
  const curve = {
    initialDelayMs: options.initialDelayMs ?? DEFAULT_INITIAL_DELAY_MS,
    jitterRatio: options.jitterRatio ?? DEFAULT_JITTER_RATIO,
    ...(options.random === undefined ? {} : { random: options.random }),
  };
  return {
    startedAt,
    countedRetries: 0,
    consecutiveOverloads: 0,
    credentialsRefreshed: false,
    maxOutputTokensOverride: undefined,
    backoff: ExponentialBackoff.create({ ...curve, maxDelayMs: options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS }),
    unattendedBackoff: ExponentialBackoff.create({
      ...curve,
      maxDelayMs: options.unattendedMaxDelayMs ?? DEFAULT_UNATTENDED_MAX_DELAY_MS,
    }),
  };
}

/** R1.10: a plain 400 gets its debug dump before it leaves. */
async function prepareThrownError(error: TurnError, options: RetryOptions, nowMs: number): Promise<TurnError> {
  if (options.debugDump !== undefined && error.status === 400 && error.kind === 'invalid_request') {
    return attachDebugDump(error, options.debugDump, nowMs);
  }
  return error;
}

async function refreshCredentialsOrThrow(options: RetryOptions, authError: TurnError): Promise<void> {
  try {
    await options.refreshCredentials?.();
  } catch (refreshError) {
    // The host's hook failed: the 401/403 stands, with the hook's error beside it.
    throw authError.with({ details: { ...authError.details, credentialRefreshFailed: true }, cause: refreshError });
  }
}

function emitRetry(onRetry: RetryOptions['onRetry'], event: RetryEvent): void {
  if (onRetry === undefined) return;
  // A UI listener that throws must not change what the retry layer does.
  try {
    onRetry(event);
  } catch {
    /* ignored on purpose */
  }
}

function toAbortedError(reason: unknown, thrown: unknown): TurnError {
  if (TurnError.isInstance(thrown) && thrown.kind === 'aborted') return thrown;
  return createAbortedError(reason, thrown);
}

/** The context an operation gets: a plain object whose `signal` is made when first read (see AttemptSignal). */
function createAttemptContext(
  attempt: number,
  attemptId: string,
  previousAttemptId: string | undefined,
  attemptSignal: AttemptSignal,
  maxOutputTokensOverride: number | undefined,
): AttemptContext {
  return {
    attempt,
    attemptId,
    previousAttemptId,
    maxOutputTokensOverride,
    get signal(): AbortSignal {
      return attemptSignal.signal;
    },
  };
}

/**
 * A per-attempt signal that follows the caller's until the attempt ends, so
 * a long retry loop does not pile up listeners on it (R1.6). It is made when
 * first read: runTurn races its own stop instead, and an attempt that never
 * reads `context.signal` adds no listener to the caller's signal. Read after
 * the attempt ended, it tells whether the caller had aborted by then.
 */
class AttemptSignal {
  private controller: AbortController | undefined;
  /** Forwards the caller's abort while the attempt runs; made only when the signal is read. */
  private forward: (() => void) | undefined;
  private released = false;
  private abortedAtRelease = false;
  private reasonAtRelease: unknown;

  constructor(private readonly parent: AbortSignal | undefined) {}

  get signal(): AbortSignal {
    if (this.controller !== undefined) return this.controller.signal;
    const controller = new AbortController();
    this.controller = controller;
    const { parent } = this;
    if (this.released) {
      if (this.abortedAtRelease) controller.abort(this.reasonAtRelease);
    } else if (parent?.aborted === true) {
      controller.abort(parent.reason);
    } else if (parent !== undefined) {
      this.forward = (): void => controller.abort(parent.reason);
      parent.addEventListener('abort', this.forward, { once: true });
    }
    return controller.signal;
  }

  /** The attempt ended: stop following the caller's signal. */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.abortedAtRelease = this.parent?.aborted === true;
    this.reasonAtRelease = this.parent?.reason;
    if (this.forward !== undefined) this.parent?.removeEventListener('abort', this.forward);
  }
}

function countOrDefault(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value >= 0 ? Math.floor(value) : fallback;
}

function createRandomAttemptId(): string {
  return `att_${createRandomId()}`;
}
