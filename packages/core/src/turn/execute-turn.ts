import type { ProtocolAdapter, UpstreamTarget } from '../adapter/protocol-adapter.js';
import { applyRefreshedCredentials } from '../retry/refreshed-credentials.js';
import type { FinishReason } from '../types/finish-reason.js';
import { TurnError } from '../errors/turn-error.js';
import { withRetry, type AttemptContext, type RetryOptions } from '../retry/index.js';
import { buildRecoveryRequest } from './build-recovery-request.js';
import { buildSegmentRecord, buildUsageSample, pickKnownUsage } from './build-segment-record.js';
import { decideRecovery, type RecoveryDecision } from './decide-recovery.js';
import { countPromptTextBytes } from './estimate-context-tokens.js';
import type { EventChannel } from './event-channel.js';
import { createStreamCutError, judgeSegmentAttempt, type SegmentVerdict } from './judge-segment-attempt.js';
import type { StreamRecoveryConfig } from './recovery-config.js';
import { armTimer, pickSegmentTimeLimit } from './segment-deadline.js';
import { sendSegmentRequest, type FetchFunction, type SegmentAttempt } from './send-segment-request.js';
import { finishTurn, type TurnEnding } from './finish-turn.js';
import { readModel, TurnState } from './turn-state.js';
import type { SegmentRecord, TurnRecovery, TurnResult } from './turn-result.js';
import { minDefined } from '../internal/min-defined.js';

export interface TurnEngineOptions<Native extends object> {
  adapter: ProtocolAdapter<Native>;
  request: Native;
  target: UpstreamTarget;
  fetch: FetchFunction;
  retry: RetryOptions;
  recovery: StreamRecoveryConfig;
  signal: AbortSignal | undefined;
  now: () => number;
  createId: () => string;
  requestIdHeader: string;
  inputWarnings: readonly string[];
}

interface SampleRecovery {
  recoveryId?: string;
  recoveryScheduled?: boolean;
  recovered?: boolean;
}

/** One physical request's result as the engine keeps it until its sample is recorded. */
interface SegmentRun {
  requestId: string;
  attempt: SegmentAttempt;
  verdict: SegmentVerdict | undefined;
  record: SegmentRecord;
}

/**
 * The logical turn (R4): segment 1 under `withRetry` (R1), at most one
 * recovery segment for a cut thinking stream, then exactly one final event,
 * one `recordTurn` and a `TurnResult`. Never rejects.
 */
export async function executeTurn<Native extends object>(
  options: TurnEngineOptions<Native>,
  channel: EventChannel,
  state: TurnState,
): Promise<TurnResult> {
  const { adapter, request, now, recovery } = options;
  const turnStartedAt = now();
  const protocol = adapter.protocol;
  const model = readModel(adapter, request);
  for (const warning of options.inputWarnings) state.addWarning(warning);

  // The host may abort through `signal` or through `retry.signal`: both stop the whole turn (R1.6).
  const hostSignals = [options.signal, options.retry.signal].filter((signal): signal is AbortSignal => signal !== undefined);
  const onHostAbort = (event: Event): void =>
    state.stop({ by: 'host-signal', reason: (event.target as AbortSignal).reason });
  for (const signal of hostSignals) {
    if (signal.aborted) state.stop({ by: 'host-signal', reason: signal.reason });
    else signal.addEventListener('abort', onHostAbort, { once: true });
  }

  // R4.7: the whole-turn limit runs from segment 1's start; `streamRecovery: false` → no client-side limit (R4.8).
  const turnDeadlineAt = recovery.enabled ? turnStartedAt + recovery.turnTimeoutMs : undefined;
  // The timer itself, not a disarm closure: whatever the turn keeps, every open stream holds (issue 19).
  let limitTimer: ReturnType<typeof setTimeout> | undefined;
  const armSegmentLimit = (segmentIndex: 0 | 1): void => {
    clearTimeout(limitTimer);
    if (!recovery.enabled || turnDeadlineAt === undefined) return;
    const limit = pickSegmentTimeLimit(
      segmentIndex,
      now(),
      turnDeadlineAt,
      recovery.turnTimeoutMs,
      recovery.recoverySegmentTimeoutMs,
    );
    limitTimer = armTimer(limit.firesAt - now(), () => state.stop({ by: 'time-limit', segmentIndex, limit }));
  };

  // The warnings snapshot is taken when the sample is recorded; it never changes afterwards (R4.11).
  const recordSample = (record: SegmentRecord, extra: SampleRecovery): void => {
    state.recordUsage(() =>
      buildUsageSample(record, {
        protocol,
        model,
        warnings: state.warnings,
        recoveryId: extra.recoveryId,
        recoveryScheduled: extra.recoveryScheduled ?? false,
        recovered: extra.recovered ?? false,
      }),
    );
  };

  // R1.7: credentials a refresh hook returns are sent from the next request on (issue 18).
  let target = options.target;
  const hostRefresh = options.retry.refreshCredentials;
  const refreshCredentials =
    hostRefresh === undefined
      ? undefined
      : async (): Promise<void> => {
          target = applyRefreshedCredentials(target, await hostRefresh());
        };

  // Not async, nor the attempt below: a suspended frame per layer (a generator, its registers, a
  // promise and its reaction) is held for the whole stream of every open turn (issue 19). The
  // request settles with the judged segment itself, one promise for both (decision 0297).
  const runSegment = (segmentIndex: 0 | 1, native: Native, requestId: string): Promise<SegmentRun> =>
    sendSegmentRequest(
      {
        adapter,
        native: adapter.withStreaming(native),
        target,
        fetch: options.fetch,
        requestId,
        requestIdHeader: options.requestIdHeader,
        stop: state,
        now,
        channel,
        notices: state,
        forwardToolCalls: segmentIndex === 0,
        blockIdPrefix: segmentIndex === 0 ? '' : 'recovery-',
        // R4.3: only segment 1's reasoning can become a checkpoint, and only with recovery on.
        keepReasoning: segmentIndex === 0 && recovery.enabled && recovery.recoveriesPerTurn > 0,
        reasoningMaxChars: recovery.enabled ? recovery.checkpointMaxChars : 0,
      },
      (attempt) => {
        const run = judgeSegmentRun(attempt, segmentIndex, requestId, state);
        state.segments.push(run.record);
        // Segment 1's failures go back to withRetry (R1), recorded at once; the recovery segment is never retried.
        if (segmentIndex === 0 && run.verdict?.kind === 'failed') {
          recordSample(run.record, {});
          throw run.verdict.error;
        }
        return run;
      },
    );

  const end = (ending: TurnEnding): TurnResult => {
    clearTimeout(limitTimer);
    for (const signal of hostSignals) signal.removeEventListener('abort', onHostAbort);
    return finishTurn(ending, { state, protocol, model, turnStartedAt, now });
  };

  // Segment 1 with R1 retries. Failed attempts are recorded at once; the
  // final ok/cut attempt waits for the recovery decision (recoveryScheduled).
  let first: SegmentRun;
  try {
    armSegmentLimit(0);
    const { deadlineAt: hostDeadlineAt, onRetry: hostOnRetry, onHeartbeat: hostOnHeartbeat } = options.retry;
    first = await withRetry(
      (context: AttemptContext) => {
        const native =
          context.maxOutputTokensOverride === undefined
            ? request
            : adapter.withMaxOutputTokens(request, context.maxOutputTokensOverride);
        // withRetry is given `state.signal` below, so the attempt's signal aborts exactly when it does:
        // the segment races the turn's stop itself (no `AbortSignal.any` per attempt, decision 0180).
        return runSegment(0, native, context.attemptId);
      },
      {
        ...options.retry,
        refreshCredentials,
        // R1.8's resize floor is the request's own thinking budget + 1 unless the host gave one.
        thinkingBudget: options.retry.thinkingBudget ?? adapter.getThinkingBudget?.(request),
        signal: state.signal,
        now,
        createAttemptId: options.retry.createAttemptId ?? options.createId,
        deadlineAt: minDefined(hostDeadlineAt, turnDeadlineAt),
        onRetry: (event) => {
          channel.post({ type: 'retry', ...event });
          hostOnRetry?.(event);
        },
        onHeartbeat: (event) => {
          channel.post({ type: 'heartbeat', waitedMs: event.waitedMs, remainingMs: event.remainingMs });
          hostOnHeartbeat?.(event);
        },
      },
    );
  } catch (thrown) {
    // withRetry turns anything thrown during an abort into ABORTED; the stop cause says which limit or abort it was.
    const error = state.stopError() ?? (TurnError.isInstance(thrown) ? thrown : toUnexpectedError(thrown));
    return end({ error, finishReason: undefined, recovery: undefined, recoverySkipped: undefined });
  }

  try {
    const firstVerdict = first.verdict as Exclude<SegmentVerdict, { kind: 'failed' }>;
    if (firstVerdict.kind === 'ok') {
      recordSample(first.record, {});
      return end({
        error: undefined,
        finishReason: firstVerdict.facts.finishReason,
        recovery: undefined,
        recoverySkipped: undefined,
      });
    }

    // Segment 1 was cut after output reached the host: recover once, or STREAM_CUT.
    const facts = firstVerdict.facts;
    const decision = decideSegmentRecovery(options, facts, state, now(), turnDeadlineAt);
    if (!decision.recover) {
      recordSample(first.record, {});
      // R4.9: a skipped recovery is STREAM_CUT, not retryable, so hosts do not resend the long turn.
      const error = createStreamCutError(
        `The stream ended without a finish frame after output reached the host; no recovery (${decision.reason}).`,
        undefined,
        { recoverySkipped: decision.reason },
      );
      return end({ error, finishReason: undefined, recovery: undefined, recoverySkipped: decision.reason });
    }

    const recoveryId = options.createId();
    recordSample(first.record, { recoveryId, recoveryScheduled: true });
    const turnRecovery: TurnRecovery = {
      recoveryId,
      recovered: false,
      capacityCheck: decision.capacityCheck,
      maxOutputTokens: decision.maxOutputTokens,
    };
    const recoveryRequest = buildRecoveryRequest(adapter, request, facts.reasoningText, decision.maxOutputTokens);
    // Segment 1 is over: from here a limit that fires belongs to the recovery (segment 2),
    // also while the host still holds `recovery-start` (R4.9 names the segment that hit it).
    armSegmentLimit(1);
    try {
      await channel.deliver({ type: 'recovery-start', recoveryId });
    } catch {
      // The host stopped iterating: handled by the stop cause below.
    }
    // R4.9 / R8.4: an abort between segments prevents the recovery request.
    const stoppedBetween = state.stopError();
    if (stoppedBetween !== undefined) {
      return end({
        error: stoppedBetween,
        finishReason: undefined,
        recovery: turnRecovery,
        recoverySkipped: undefined,
      });
    }

    // The recovery segment is sent once and never retried: a third request is never made (issue 4 row 7).
    const second = await runSegment(1, recoveryRequest, options.createId());
    const secondVerdict = second.verdict;
    const recovered =
      secondVerdict?.kind === 'ok' && secondVerdict.facts.nonWhitespaceText && secondVerdict.facts.terminalFrameSeen;
    turnRecovery.recovered = recovered === true;
    recordSample(second.record, { recoveryId, recoveryScheduled: true, recovered: turnRecovery.recovered });
    if (secondVerdict?.kind === 'ok' && recovered) {
      return end({
        error: undefined,
        finishReason: withoutDroppedToolCalls(secondVerdict.facts.finishReason),
        recovery: turnRecovery,
        recoverySkipped: undefined,
      });
    }
    return end({
      error: describeRecoveryFailure(secondVerdict),
      finishReason: undefined,
      recovery: turnRecovery,
      recoverySkipped: undefined,
    });
  } catch (thrown) {
    // An adapter that throws while building or reading the recovery must not leave the turn unrecorded.
    return end({
      error: state.stopError() ?? toUnexpectedError(thrown),
      finishReason: undefined,
      recovery: undefined,
      recoverySkipped: undefined,
    });
  }
}

/** What one physical request's attempt means for the turn: its verdict and its record (R6.1). */
function judgeSegmentRun(attempt: SegmentAttempt, segmentIndex: 0 | 1, requestId: string, state: TurnState): SegmentRun {
  const aborted =
    attempt.stage === 'aborted-before-response' || (attempt.stage === 'streamed' && attempt.facts.end === 'aborted');
  if (aborted) {
    const error = state.stopError() ?? new TurnError({ kind: 'aborted', message: 'The request was aborted.' });
    const outcome = error.kind === 'aborted' ? 'aborted' : 'timeout';
    const record = buildSegmentRecord({ segmentIndex, requestId, attempt, outcome, errorCode: error.code });
    return { requestId, attempt, verdict: { kind: 'failed', error, facts: undefined }, record };
  }
  const verdict = judgeSegmentAttempt(attempt);
  const outcome = verdict.kind === 'ok' ? 'ok' : verdict.kind === 'cut' ? 'cut' : 'error';
  const errorCode = verdict.kind === 'failed' ? verdict.error.code : verdict.kind === 'cut' ? 'STREAM_CUT' : undefined;
  return { requestId, attempt, verdict, record: buildSegmentRecord({ segmentIndex, requestId, attempt, outcome, errorCode }) };
}

/**
 * R4.5: the recovery segment's tool calls are never handed to the host, so
 * its finish must not say tool calls follow: a host that reads
 * `tool_calls`/`tool_use` and iterates the calls would find none.
 */
function withoutDroppedToolCalls(finishReason: FinishReason | undefined): FinishReason | undefined {
  // `raw` goes too: encoders re-emit a raw reason verbatim (e.g. Chat `tool_calls`).
  return finishReason?.unified === 'tool-calls' ? { unified: 'stop', raw: undefined } : finishReason;
}

/** An input the adapter cannot read back is `undefined`, which fails a known-window capacity check (conservative). */
function readInputTextBytes<Native extends object>(adapter: ProtocolAdapter<Native>, request: Native): number | undefined {
  try {
    const { prompt, settings } = adapter.parseRequest(request);
    return countPromptTextBytes(prompt, settings.tools);
  } catch {
    return undefined;
  }
}

function decideSegmentRecovery<Native extends object>(
  options: TurnEngineOptions<Native>,
  facts: Extract<SegmentVerdict, { kind: 'cut' }>['facts'],
  state: TurnState,
  nowMs: number,
  turnDeadlineAt: number | undefined,
): RecoveryDecision {
  const { adapter, request, recovery } = options;
  // Parsing the whole prompt back only serves the capacity check, which needs a known window.
  const inputTextBytes =
    recovery.enabled && recovery.contextWindowTokens !== undefined ? readInputTextBytes(adapter, request) : undefined;
  let hostMaxOutputTokens: number | undefined;
  try {
    hostMaxOutputTokens = adapter.getMaxOutputTokens(request);
  } catch {
    hostMaxOutputTokens = undefined;
  }
  const segmentOutputTokens = pickKnownUsage(facts.usage).outputTokens;
  return decideRecovery({
    config: recovery,
    segmentEnd: facts.end === 'eof' && !facts.terminalFrameSeen ? 'eof-without-terminal' : 'other',
    reasoningText: facts.reasoningText,
    textProduced: facts.textProduced,
    toolCallProduced: facts.toolCallProduced,
    segmentOutputTokens,
    recoveriesSoFar: 0,
    aborted: state.stopped !== undefined,
    nowMs,
    turnDeadlineAt,
    hostMaxOutputTokens,
    inputTextBytes,
  });
}

/** R4.9: every recovery failure is STREAM_CUT (not retryable); an abort stays ABORTED; a time limit is named. */
function describeRecoveryFailure(verdict: SegmentVerdict | undefined): TurnError {
  if (verdict === undefined) return createStreamCutError('The recovery segment failed.');
  switch (verdict.kind) {
    case 'ok':
      return createStreamCutError('The recovery segment ended without non-whitespace text; the turn was not recovered.', undefined, {
        recoveryFailure: 'no-text',
      });
    case 'cut':
      return createStreamCutError('The recovery segment was cut again before its finish frame.', undefined, { recoveryFailure: 'cut' });
    case 'failed':
      if (verdict.error.kind === 'aborted' || verdict.error.code === 'STREAM_CUT') return verdict.error;
      return createStreamCutError(`The recovery segment failed (${verdict.error.code}).`, verdict.error, {
        recoveryFailure: 'error',
      });
    default: {
      const _exhaustive: never = verdict;
      return _exhaustive;
    }
  }
}

function toUnexpectedError(thrown: unknown): TurnError {
  return new TurnError({
    kind: 'server',
    code: 'UNKNOWN',
    retryable: false,
    message: 'Unexpected failure in runTurn.',
    cause: thrown,
  });
}
