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
   * @deprecated "attempt" names the segment in stats samples; read `retryNumber` (issue 18, decision 0262).
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
export function withRetry<T>(
  operation: (context: AttemptContext) => Promise<T>,
  options: RetryOptions = {},
): Promise<T> {
  try {
    return new RetryLoop(operation, options).attempt();
  } catch (thrown) {
    // A host's `now` or `createAttemptId` that throws: a rejection, as from an async function.
    return Promise.reject(thrown);
  }
}

/**
 * One `withRetry` call while it runs. Not an async function: its frame (a
 * generator and 256 bytes of registers, a promise, a reaction and the
 * await's closures) stayed suspended on the attempt for the whole stream of
 * every open runTurn (issue 19, decision 0299). An attempt is a `then`; only
 * a failure enters the async part, which ends by starting the next attempt.
 */
class RetryLoop<T> {
  private readonly now: () => number;
  private readonly createAttemptId: () => string;
  private readonly startedAt: number;
  // Built on the first failure: a turn whose first attempt streams (most) holds no retry state,
  // policy or backoff curves for its whole stream, nor builds them (issue 19, per-stream memory).
  private policy: RetryPolicy | undefined;
  private state: RetryState | undefined;
  private attemptNumber = 0;
  private attemptId: string;
  private previousAttemptId: string | undefined;

  constructor(
    private readonly operation: (context: AttemptContext) => Promise<T>,
    private readonly options: RetryOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.createAttemptId = options.createAttemptId ?? createRandomAttemptId;
    this.startedAt = this.now();
    this.attemptId = this.createAttemptId();
  }

  attempt(): Promise<T> {
    const { signal } = this.options;
    // No request is sent after an abort (R1.6, R3.10).
    if (signal?.aborted) return Promise.reject(createAbortedError(signal.reason));
    const attemptSignal = new AttemptSignal(signal);
    let result: Promise<T>;
    try {
      result = Promise.resolve(
        this.operation(
          createAttemptContext(this.attemptNumber, this.attemptId, this.previousAttemptId, attemptSignal, this.state?.maxOutputTokensOverride),
        ),
      );
    } catch (thrown) {
      attemptSignal.release();
      return this.afterFailure(thrown);
    }
    return result.then(
      (value) => {
        attemptSignal.release();
        return value;
      },
      (thrown: unknown) => {
        attemptSignal.release();
        return this.afterFailure(thrown);
      },
    );
  }

  /** What the R1 rules make of a failed attempt: the error thrown, or a wait and the next attempt. */
  private async afterFailure(thrown: unknown): Promise<T> {
    const { options } = this;
    const { signal } = options;
    // Whatever the operation threw while the caller was aborting is the abort (R1.6).
    const error = signal?.aborted ? toAbortedError(signal.reason, thrown) : classifyThrownError(thrown);
    this.policy ??= resolvePolicy(options);
    this.state ??= createInitialState(options, this.startedAt);
    const plan = planRetry(error, this.state, this.policy, this.now());
    if (plan.action === 'throw') {
      throw await prepareThrownError(plan.error, options, this.now());
    }

    const nextAttemptId = this.createAttemptId();
    emitRetry(options.onRetry, {
      retryNumber: this.attemptNumber + 1,
      attempt: this.attemptNumber + 1,
      delayMs: plan.delayMs,
      kind: error.kind,
      code: error.code,
      status: error.status,
      attemptId: nextAttemptId,
      previousAttemptId: this.attemptId,
      reason: plan.reason,
    });
    if (plan.delayMs > 0) {
      await sleep(plan.delayMs, {
        ...(signal === undefined ? {} : { signal }),
        ...(options.onHeartbeat === undefined ? {} : { onHeartbeat: options.onHeartbeat }),
        heartbeatIntervalMs: options.heartbeatIntervalMs ?? DEFAULT_HEARTBEAT_INTERVAL_MS,
      });
    }
    if (plan.refreshCredentials) await refreshCredentialsOrThrow(options, error);
    this.previousAttemptId = this.attemptId;
    this.attemptId = nextAttemptId;
    this.attemptNumber += 1;
    return this.attempt();
  }
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

/** Where an attempt context keeps its AttemptSignal: not enumerable, so a copy of the context does not carry it. */
const ATTEMPT_SIGNAL: unique symbol = Symbol('attemptSignal');
type AttemptContextWithSignal = AttemptContext & { readonly [ATTEMPT_SIGNAL]: AttemptSignal };

/** One getter for every context: `signal` stays an own, enumerable accessor, made on first read (decision 0180). */
const SIGNAL_PROPERTY: PropertyDescriptor = {
  get(this: AttemptContextWithSignal): AbortSignal {
    return this[ATTEMPT_SIGNAL].signal;
  },
  enumerable: true,
  configurable: true,
};

/**
 * The context an operation gets. Not a literal with `get signal()`: V8 puts
 * such a literal in dictionary mode (a 448-byte property table, plus a getter
 * closure, per attempt), and runTurn's attempt context lives as long as its
 * stream (issue 19, decision 0291). Properties defined with one shared
 * descriptor keep one fast hidden class.
 */
function createAttemptContext(
  attempt: number,
  attemptId: string,
  previousAttemptId: string | undefined,
  attemptSignal: AttemptSignal,
  maxOutputTokensOverride: number | undefined,
): AttemptContext {
  const context = { attempt, attemptId, previousAttemptId, maxOutputTokensOverride };
  Object.defineProperty(context, ATTEMPT_SIGNAL, { value: attemptSignal });
  Object.defineProperty(context, 'signal', SIGNAL_PROPERTY);
  return context as AttemptContext;
}

/**
 * A per-attempt signal that follows the caller's; released so long retry
 * loops do not pile up listeners. Created on first read only: an operation
 * that never reads `context.signal` (runTurn races the caller's own signal)
 * costs no AbortController and no listener per attempt (decision 0180).
 */
class AttemptSignal {
  private controller: AbortController | undefined;
  private forward: (() => void) | undefined;
  private released = false;
  /** The caller's abort state when the attempt ended, for a signal first read after that. */
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
    } else if (parent !== undefined) {
      if (parent.aborted) controller.abort(parent.reason);
      else {
        this.forward = (): void => controller.abort(parent.reason);
        parent.addEventListener('abort', this.forward, { once: true });
      }
    }
    return controller.signal;
  }

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
