import type { TurnError } from '../errors/turn-error.js';
import { classifyFailure, type FailureClass } from './classify-failure.js';
import { planBudgetedRetry, type RetryBudget, type RetryHistory } from './retry-budget.js';

/**
 * What the host (the gateway's client) has received of the turn when an
 * attempt failed. `reasoning` is thinking only: no answer text, no tool call.
 */
export type DeliveredOutput = 'nothing' | 'reasoning' | 'visible-text' | 'tool-call';

/** R11.6: `prefill` is opt-in; off by default so R4's "visible output is not recovered" holds. */
export type ContinuationMode = 'off' | 'prefill';

export interface FailoverInput {
  error: TurnError;
  /** What the host has received over the whole turn. */
  delivered: DeliveredOutput;
  /** `continuation`: the failed attempt was the turn's one continuation request (R11.6). */
  phase: 'attempt' | 'continuation';
  /** Whether the failed attempt itself relayed anything (a continuation that got text out is a cut of its own). */
  attemptDelivered: boolean;
  /** A 2xx response started for the failed attempt (a later connection failure is a cut). */
  responseStarted: boolean;
  hasNextTarget: boolean;
  continuation: ContinuationMode;
  continuationsSoFar: number;
  budget: RetryBudget;
  history: RetryHistory;
  nowMs: number;
  random?: () => number;
}

export type FailoverReason =
  | 'aborted'
  | 'continuation-refused'
  | 'continuation-failed'
  | 'tool-call-started'
  | 'content-filter'
  | 'auth'
  | 'invalid-request'
  | 'turn-time-limit'
  | 'output-delivered'
  | 'context-resize'
  | 'context-length'
  | 'silent-route'
  | 'stall'
  | 'cut'
  | 'malformed'
  | 'fallback-signal'
  | 'retry-budget'
  | 'no-fallback'
  | 'not-retryable';

/**
 * The next step of a chain (R11.2, R11.3, R11.6):
 * - `retry`: the same target again after `delayMs`;
 * - `fail-over`: the next target at once (the caller applies the burst rule);
 * - `continue`: one continuation request with the partial answer as a prefill;
 * - `end`: the turn ends with `error` (for a failed continuation: the original cut, never the prefill 400).
 */
export type FailoverDecision =
  | { action: 'retry'; reason: 'transient' | 'context-resize'; delayMs: number; failure: FailureClass }
  | { action: 'fail-over'; reason: FailoverReason; failure: FailureClass }
  | { action: 'continue'; reason: 'stall' | 'cut' | 'malformed'; failure: FailureClass }
  | { action: 'end'; reason: FailoverReason; failure: FailureClass; useOriginalError: boolean };

const BEFORE_OUTPUT: ReadonlySet<DeliveredOutput> = new Set(['nothing', 'reasoning']);

function end(reason: FailoverReason, failure: FailureClass, useOriginalError = false): FailoverDecision {
  return { action: 'end', reason, failure, useOriginalError };
}

/** Fail over when there is somewhere to go; otherwise end with the error as it is. */
function failOverOrEnd(input: FailoverInput, reason: FailoverReason, failure: FailureClass): FailoverDecision {
  return input.hasNextTarget ? { action: 'fail-over', reason, failure } : end(reason, failure);
}

/**
 * A retry of the same target while nothing reached the host; once thinking
 * was relayed a resend would show it twice, so only another target (spliced
 * after it, like R4's recovery segment) or an end remain.
 */
function retryOrMove(input: FailoverInput, failure: FailureClass, reason: FailoverReason): FailoverDecision {
  if (input.delivered !== 'nothing') return failOverOrEnd(input, input.hasNextTarget ? reason : 'no-fallback', failure);
  const counted = input.budget.failOverCounts === 'retryable' || input.error.kind === 'overloaded';
  const history: RetryHistory = counted ? input.history : { ...input.history, consecutiveCountedFailures: 0 };
  const verdict = planBudgetedRetry(
    input.budget,
    history,
    { hasNextTarget: input.hasNextTarget, retryAfterMs: input.error.retryAfterMs, nowMs: input.nowMs },
    input.random,
  );
  if (verdict.verdict === 'retry') return { action: 'retry', reason: 'transient', delayMs: verdict.delayMs, failure };
  return failOverOrEnd(input, failure === 'transient' ? 'retry-budget' : reason, failure);
}

/** R11.2's rules as a flat list, in the order they must win. Pure. */
export function decideFailover(input: FailoverInput): FailoverDecision {
  const failure = classifyFailure(input.error, { responseStarted: input.responseStarted });

  // R1.6: an abort is never retried or moved.
  if (failure === 'aborted') return end('aborted', failure);

  // R11.6: one continuation per turn; when it fails before relaying anything, the host gets the original cut.
  if (input.phase === 'continuation') {
    if (input.attemptDelivered) return end('output-delivered', failure);
    return end(failure === 'prefill-refused' ? 'continuation-refused' : 'continuation-failed', failure, true);
  }

  // R11.2: a tool call that started streaming would run twice.
  if (input.delivered === 'tool-call') return end('tool-call-started', failure);

  // R11.2: these reach the host as they are; another model would answer the same or the request is wrong.
  if (failure === 'content-filter') return end('content-filter', failure);
  if (failure === 'auth') return end('auth', failure);
  if (failure === 'invalid-request' || failure === 'prefill-refused') return end('invalid-request', failure);
  if (failure === 'turn-time-limit') return end('turn-time-limit', failure);
  if (failure === 'final') return end('not-retryable', failure);

  // R11.6 / R4.2: after visible text only an opt-in continuation may go on, and only after a cut, stall or malformed event.
  if (input.delivered === 'visible-text') {
    const continuable = failure === 'cut' || failure === 'stall' || failure === 'malformed';
    if (continuable && input.continuation === 'prefill' && input.continuationsSoFar < 1) {
      return { action: 'continue', reason: failure, failure };
    }
    return end('output-delivered', failure);
  }

  // R1.8: "input + max_tokens > limit" is fixed on the same target by a smaller max_tokens.
  if (failure === 'context-resize') {
    if (input.delivered === 'nothing' && input.history.attemptsOnTarget < input.budget.maxAttemptsPerTarget) {
      return { action: 'retry', reason: 'context-resize', delayMs: 0, failure };
    }
    return failOverOrEnd(input, 'context-resize', failure);
  }

  // R11.2/R11.3: the same model is never retried on a context-length error; the next (larger) one is tried at once.
  if (failure === 'context-length') return failOverOrEnd(input, 'context-length', failure);
  if (failure === 'fallback-signal') return failOverOrEnd(input, 'fallback-signal', failure);

  // R11.2/R11.4: a silent route, a stall, a cut or a malformed stream before output moves on at once;
  // with nowhere to go, a resend is worth it while nothing reached the host (R1.1).
  if (failure === 'silent-route' || failure === 'stall' || failure === 'cut' || failure === 'malformed') {
    if (BEFORE_OUTPUT.has(input.delivered) && input.hasNextTarget) return { action: 'fail-over', reason: failure, failure };
    return retryOrMove(input, failure, failure);
  }

  // R1.1/R11.3: 429, 5xx, overloaded, a refused connection: retried within the budget, then the next target.
  return retryOrMove(input, failure, 'retry-budget');
}
