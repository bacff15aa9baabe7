import { TurnError } from '../errors/turn-error.js';
import { applyRefreshedCredentials } from '../retry/refreshed-credentials.js';
import { withRetry, type HeartbeatEvent, type RetryEvent, type RetryOptions } from '../retry/index.js';
import { minDefined } from '../internal/min-defined.js';
import { buildRecoveryRequest } from './build-recovery-request.js';
import { recordSample } from './record-sample.js';
import { finishTurn, type TurnEnding } from './finish-turn.js';
import { createStreamCutError } from './judge-segment-attempt.js';
import type { ProtocolAdapter } from '../adapter/protocol-adapter.js';
import { executeChainTurn } from './execute-chain-turn.js';
import { runAttempt, type AttemptPlan, type SegmentRun } from './run-attempt.js';
import { decideSegmentRecovery, describeRecoveryFailure, withoutDroppedToolCalls, type CutFacts } from './segment-recovery.js';
import { recordTurnTelemetry } from '../telemetry/record-turn-telemetry.js';
import type { Turn } from './turn.js';
import type { TurnRecovery, TurnResult } from './turn-result.js';

/**
 * The logical turn (R4): segment 1 under `withRetry` (R1), at most one
 * recovery segment for a cut thinking stream, then exactly one final event,
 * one `recordTurn` and a `TurnResult`. Never rejects.
 */
export async function executeTurn<Native extends object>(turn: Turn<Native>): Promise<TurnResult> {
  // R11: a fail-over chain runs segment 1 under its own budget, around the same runAttempt.
  if (turn.options.chain !== undefined) return executeChainTurn(turn);
  let first: SegmentRun;
  try {
    turn.begin();
    turn.armSegmentLimit(0);
    first = await runFirstSegment(turn);
  } catch (thrown) {
    // withRetry turns anything thrown during an abort into ABORTED; the stop cause says which limit or abort it was.
    return end(turn, { error: turn.stopError() ?? (TurnError.isInstance(thrown) ? thrown : toUnexpectedError(thrown)) });
  }
  try {
    const { verdict } = first;
    // (runAttempt throws segment 1's failed attempts to withRetry; this only tells TypeScript so.)
    if (verdict.kind === 'failed') throw verdict.error;
    // An ok or cut attempt's sample waited for the recovery decision (recoveryScheduled).
    if (verdict.kind === 'cut') return await recoverCutSegment(turn, first, verdict.facts);
    recordSample(turn, first.record);
    return end(turn, { finishReason: verdict.facts.finishReason });
  } catch (thrown) {
    // An adapter that throws while building or reading the recovery must not leave the turn unrecorded.
    return end(turn, { error: turn.stopError() ?? toUnexpectedError(thrown) });
  }
}

/** Segment 1 with R1 retries: runAttempt records a failed attempt at once and throws it back to withRetry. */
function runFirstSegment<Native extends object>(turn: Turn<Native>): Promise<SegmentRun> {
  const { adapter, request } = turn.options;
  return withRetry((context) => {
    const { maxOutputTokensOverride } = context;
    const native = maxOutputTokensOverride === undefined ? request : adapter.withMaxOutputTokens(request, maxOutputTokensOverride);
    return runAttempt(turn, { segmentIndex: 0, native, requestId: context.attemptId, underRetry: true });
  }, firstSegmentRetryOptions(turn));
}

/**
 * The host's R1 options, chained with the turn's own stop, limit, clock, ids
 * and events: the host's object with the turn's fields assigned over it.
 * (Written as a literal that spreads the host's options and then adds the
 * turn's keys, this one object cost ≈ 5 µs per turn, on the gateway's
 * first-byte path: `node bench/gateway/turn-overhead.mjs`.)
 */
function firstSegmentRetryOptions<Native extends object>(turn: Turn<Native>): RetryOptions {
  const { adapter, request, retry, now, createId } = turn.options;
  const { onRetry, onHeartbeat, refreshCredentials } = retry;
  return Object.assign({}, retry, {
    refreshCredentials:
      refreshCredentials === undefined
        ? undefined
        : async (): Promise<void> => {
            turn.target = applyRefreshedCredentials(turn.target, await refreshCredentials());
          },
    // R1.8's resize floor is the request's own thinking budget + 1 unless the host gave one.
    thinkingBudget: retry.thinkingBudget ?? adapter.getThinkingBudget?.(request),
    // The turn's stop covers the host's signals, the consumer and the time limits (R1.6, R4.7).
    signal: turn.signal,
    now,
    createAttemptId: retry.createAttemptId ?? createId,
    deadlineAt: minDefined(retry.deadlineAt, turn.deadlineAt),
    onRetry: (event: RetryEvent) => {
      turn.events.post({ type: 'retry', ...event });
      onRetry?.(event);
    },
    onHeartbeat: (event: HeartbeatEvent) => {
      turn.events.post({ type: 'heartbeat', waitedMs: event.waitedMs, remainingMs: event.remainingMs });
      onHeartbeat?.(event);
    },
  } satisfies RetryOptions);
}

/**
 * The request a recovery is built from and where it goes: the host's own by
 * default; in a fail-over chain, the destination segment 1 went to.
 */
export interface RecoveryVia {
  adapter: ProtocolAdapter<object>;
  request: object;
  /** A chain's destination and a fresh time-limit watch for the recovery request (R11.4). */
  plan?: () => Pick<AttemptPlan<object>, 'route' | 'watch'>;
}

/** Segment 1 was cut after output reached the host: recover once, or STREAM_CUT. */
export async function recoverCutSegment<Native extends object>(turn: Turn<Native>, first: SegmentRun, facts: CutFacts, via?: RecoveryVia): Promise<TurnResult> {
  const { options } = turn;
  const adapter: ProtocolAdapter<object> = via?.adapter ?? options.adapter;
  const request: object = via?.request ?? options.request;
  const decision = decideSegmentRecovery({ adapter, request, recovery: options.recovery }, facts, turn.stopped !== undefined, options.now(), turn.deadlineAt);
  if (!decision.recover) {
    recordSample(turn, first.record);
    // R4.9: a skipped recovery is STREAM_CUT, not retryable, so hosts do not resend the long turn.
    const error = createStreamCutError(
      `The stream ended without a finish frame after output reached the host; no recovery (${decision.reason}).`,
      undefined,
      { recoverySkipped: decision.reason },
    );
    return end(turn, { error, recoverySkipped: decision.reason });
  }

  const recoveryId = options.createId();
  recordSample(turn, first.record, { recoveryId, recoveryScheduled: true });
  const recovery: TurnRecovery = { recoveryId, recovered: false, capacityCheck: decision.capacityCheck, maxOutputTokens: decision.maxOutputTokens };
  const recoveryRequest = buildRecoveryRequest(adapter, request, facts.reasoningText, decision.maxOutputTokens);
  // Segment 1 is over: from here a limit that fires belongs to the recovery (segment 2),
  // also while the host still holds `recovery-start` (R4.9 names the segment that hit it).
  turn.armSegmentLimit(1);
  try {
    await turn.events.deliver({ type: 'recovery-start', recoveryId });
  } catch {
    // The host stopped iterating: handled by the stop cause below.
  }
  // R4.9 / R8.4: an abort between segments prevents the recovery request.
  const stoppedBetween = turn.stopError();
  if (stoppedBetween !== undefined) return end(turn, { error: stoppedBetween, recovery });

  // The recovery segment is sent once and never retried: a third request is never made (R4.7).
  const second = await runAttempt(turn, { segmentIndex: 1, native: recoveryRequest, requestId: options.createId(), underRetry: false, ...via?.plan?.() });
  const { verdict } = second;
  recovery.recovered = verdict.kind === 'ok' && verdict.facts.nonWhitespaceText && verdict.facts.terminalFrameSeen;
  recordSample(turn, second.record, { recoveryId, recoveryScheduled: true, recovered: recovery.recovered });
  if (verdict.kind === 'ok' && recovery.recovered) return end(turn, { finishReason: withoutDroppedToolCalls(verdict.facts.finishReason), recovery });
  return end(turn, { error: describeRecoveryFailure(verdict), recovery });
}

/** The turn's one end: its usage and final event go to the host, it is recorded, and its result settles (R6.2). */
export function end<Native extends object>(turn: Turn<Native>, ending: Partial<TurnEnding>): TurnResult {
  turn.dispose();
  const result = finishTurn(turn, {
    error: ending.error,
    finishReason: ending.finishReason,
    recovery: ending.recovery,
    recoverySkipped: ending.recoverySkipped,
  });
  turn.settle(result);
  recordTurnTelemetry(turn, result);
  return result;
}

export function toUnexpectedError(thrown: unknown): TurnError {
  return new TurnError({
    kind: 'server',
    code: 'UNKNOWN',
    retryable: false,
    message: 'Unexpected failure in runTurn.',
    cause: thrown,
  });
}
