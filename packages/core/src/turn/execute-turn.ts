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
import { decideSegmentRecovery, describeRecoveryFailure, withoutDroppedToolCalls, type CutFacts } from './segment-recovery.js';
import { readModel, TurnState } from './turn-state.js';
import type { SegmentRecord, TurnRecovery, TurnResult } from './turn-result.js';
import { minDefined } from '../internal/min-defined.js';
import type { RunTurnOptions } from './run-turn.js';

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
  observeSseRecords: RunTurnOptions<Native>['observeSseRecords'];
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
export function executeTurn<Native extends object>(
  options: TurnEngineOptions<Native>,
  channel: EventChannel,
  state: TurnState,
): Promise<TurnResult> {
  return new TurnExecution(options, channel, state).run();
}

/**
 * One logical turn while it runs. A class, not an async function with its
 * helpers as local closures: its suspended frame (a generator and 336 bytes
 * of registers) and ten closures were held for the whole stream of every
 * open turn (issue 19, decision 0298).
 */
class TurnExecution<Native extends object> {
  private readonly turnStartedAt: number;
  private readonly model: string;
  /** The host may abort through `signal` or through `retry.signal`: both stop the whole turn (R1.6). */
  private readonly hostSignals: AbortSignal[];
  private onHostAbort: ((event: Event) => void) | undefined;
  /** R4.7: the whole-turn limit runs from segment 1's start; `streamRecovery: false` → no client-side limit (R4.8). */
  private readonly turnDeadlineAt: number | undefined;
  /** The timer itself, not a disarm closure: whatever the turn keeps, every open stream holds (issue 19). */
  private limitTimer: ReturnType<typeof setTimeout> | undefined;
  /** R1.7: credentials a refresh hook returns are sent from the next request on (issue 18). */
  private target: UpstreamTarget;

  constructor(
    private readonly options: TurnEngineOptions<Native>,
    private readonly channel: EventChannel,
    private readonly state: TurnState,
  ) {
    const { adapter, request, recovery } = options;
    this.turnStartedAt = options.now();
    this.model = readModel(adapter, request);
    this.hostSignals = [options.signal, options.retry.signal].filter((signal): signal is AbortSignal => signal !== undefined);
    this.turnDeadlineAt = recovery.enabled ? this.turnStartedAt + recovery.turnTimeoutMs : undefined;
    this.target = options.target;
  }

  run(): Promise<TurnResult> {
    const { state } = this;
    for (const warning of this.options.inputWarnings) state.addWarning(warning);
    this.listenToHostSignals();
    // Segment 1 with R1 retries. Failed attempts are recorded at once; the
    // final ok/cut attempt waits for the recovery decision (recoveryScheduled).
    let first: Promise<SegmentRun>;
    try {
      this.armSegmentLimit(0);
      first = this.runFirstSegment();
    } catch (thrown) {
      return Promise.resolve(this.endAfterFirstFailed(thrown));
    }
    // Not awaited in an async frame: while segment 1 streams, the turn holds this reaction only (decision 0298).
    return first.then(
      (run) => this.afterFirstSegment(run),
      (thrown: unknown) => this.endAfterFirstFailed(thrown),
    );
  }

  private listenToHostSignals(): void {
    if (this.hostSignals.length === 0) return;
    const { state } = this;
    const onHostAbort = (event: Event): void => state.stop({ by: 'host-signal', reason: (event.target as AbortSignal).reason });
    this.onHostAbort = onHostAbort;
    for (const signal of this.hostSignals) {
      if (signal.aborted) state.stop({ by: 'host-signal', reason: signal.reason });
      else signal.addEventListener('abort', onHostAbort, { once: true });
    }
  }

  private armSegmentLimit(segmentIndex: 0 | 1): void {
    clearTimeout(this.limitTimer);
    const { recovery, now } = this.options;
    const { turnDeadlineAt, state } = this;
    if (!recovery.enabled || turnDeadlineAt === undefined) return;
    const limit = pickSegmentTimeLimit(segmentIndex, now(), turnDeadlineAt, recovery.turnTimeoutMs, recovery.recoverySegmentTimeoutMs);
    this.limitTimer = armTimer(limit.firesAt - now(), () => state.stop({ by: 'time-limit', segmentIndex, limit }));
  }

  private runFirstSegment(): Promise<SegmentRun> {
    const { options, channel, state } = this;
    const { adapter, request, retry } = options;
    const { deadlineAt: hostDeadlineAt, onRetry: hostOnRetry, onHeartbeat: hostOnHeartbeat, refreshCredentials: hostRefresh } = retry;
    return withRetry(
      (context: AttemptContext) => {
        const native =
          context.maxOutputTokensOverride === undefined ? request : adapter.withMaxOutputTokens(request, context.maxOutputTokensOverride);
        // withRetry is given `state.signal` below, so the attempt's signal aborts exactly when it does:
        // the segment races the turn's stop itself (no `AbortSignal.any` per attempt, decision 0180).
        return this.runSegment(0, native, context.attemptId);
      },
      {
        ...retry,
        refreshCredentials:
          hostRefresh === undefined
            ? undefined
            : async (): Promise<void> => {
                this.target = applyRefreshedCredentials(this.target, await hostRefresh());
              },
        // R1.8's resize floor is the request's own thinking budget + 1 unless the host gave one.
        thinkingBudget: retry.thinkingBudget ?? adapter.getThinkingBudget?.(request),
        signal: state.signal,
        now: options.now,
        createAttemptId: retry.createAttemptId ?? options.createId,
        deadlineAt: minDefined(hostDeadlineAt, this.turnDeadlineAt),
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
  }

  /** One physical request, judged and kept; segment 1's failures are recorded and thrown back to withRetry (R1). */
  private runSegment(segmentIndex: 0 | 1, native: Native, requestId: string): Promise<SegmentRun> {
    const { options, state } = this;
    const { adapter, recovery } = options;
    return sendSegmentRequest(
      {
        adapter,
        native: adapter.withStreaming(native),
        target: this.target,
        fetch: options.fetch,
        requestId,
        requestIdHeader: options.requestIdHeader,
        stop: state,
        now: options.now,
        channel: this.channel,
        notices: state,
        forwardToolCalls: segmentIndex === 0,
        blockIdPrefix: segmentIndex === 0 ? '' : 'recovery-',
        // R4.3: only segment 1's reasoning can become a checkpoint, and only with recovery on.
        keepReasoning: segmentIndex === 0 && recovery.enabled && recovery.recoveriesPerTurn > 0,
        reasoningMaxChars: recovery.enabled ? recovery.checkpointMaxChars : 0,
        observeSseRecords: options.observeSseRecords,
        segmentIndex,
      },
      // The request settles with the judged segment itself, one promise for both (decision 0297).
      (attempt) => {
        const run = judgeSegmentRun(attempt, segmentIndex, requestId, state);
        state.segments.push(run.record);
        // The recovery segment is never retried.
        if (segmentIndex === 0 && run.verdict?.kind === 'failed') {
          this.recordSample(run.record, {});
          throw run.verdict.error;
        }
        return run;
      },
    );
  }

  /** The warnings snapshot is taken when the sample is recorded; it never changes afterwards (R4.11). */
  private recordSample(record: SegmentRecord, extra: SampleRecovery): void {
    const { state, model } = this;
    const { protocol } = this.options.adapter;
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
  }

  /** withRetry turns anything thrown during an abort into ABORTED; the stop cause says which limit or abort it was. */
  private endAfterFirstFailed(thrown: unknown): TurnResult {
    const error = this.state.stopError() ?? (TurnError.isInstance(thrown) ? thrown : toUnexpectedError(thrown));
    return this.end({ error, finishReason: undefined, recovery: undefined, recoverySkipped: undefined });
  }

  /**
   * A complete segment 1 ends the turn here, synchronously: returning a
   * promise from the `then` above would cost the turn's end two more
   * microtask hops (a thenable job). Only a cut segment goes on, async.
   */
  private afterFirstSegment(first: SegmentRun): TurnResult | Promise<TurnResult> {
    try {
      const firstVerdict = first.verdict as Exclude<SegmentVerdict, { kind: 'failed' }>;
      if (firstVerdict.kind === 'ok') {
        this.recordSample(first.record, {});
        return this.end({ error: undefined, finishReason: firstVerdict.facts.finishReason, recovery: undefined, recoverySkipped: undefined });
      }
      return this.recoverCutSegment(first, firstVerdict.facts).catch((thrown: unknown) => this.endAfterRecoveryThrew(thrown));
    } catch (thrown) {
      return this.endAfterRecoveryThrew(thrown);
    }
  }

  /** An adapter that throws while building or reading the recovery must not leave the turn unrecorded. */
  private endAfterRecoveryThrew(thrown: unknown): TurnResult {
    return this.end({
      error: this.state.stopError() ?? toUnexpectedError(thrown),
      finishReason: undefined,
      recovery: undefined,
      recoverySkipped: undefined,
    });
  }

  /** Segment 1 was cut after output reached the host: recover once, or STREAM_CUT. */
  private async recoverCutSegment(first: SegmentRun, facts: CutFacts): Promise<TurnResult> {
    const { options, state } = this;
    const decision = decideSegmentRecovery(options, facts, state, options.now(), this.turnDeadlineAt);
    if (!decision.recover) {
      this.recordSample(first.record, {});
      // R4.9: a skipped recovery is STREAM_CUT, not retryable, so hosts do not resend the long turn.
      const error = createStreamCutError(
        `The stream ended without a finish frame after output reached the host; no recovery (${decision.reason}).`,
        undefined,
        { recoverySkipped: decision.reason },
      );
      return this.end({ error, finishReason: undefined, recovery: undefined, recoverySkipped: decision.reason });
    }

    const recoveryId = options.createId();
    this.recordSample(first.record, { recoveryId, recoveryScheduled: true });
    const turnRecovery: TurnRecovery = {
      recoveryId,
      recovered: false,
      capacityCheck: decision.capacityCheck,
      maxOutputTokens: decision.maxOutputTokens,
    };
    const recoveryRequest = buildRecoveryRequest(options.adapter, options.request, facts.reasoningText, decision.maxOutputTokens);
    // Segment 1 is over: from here a limit that fires belongs to the recovery (segment 2),
    // also while the host still holds `recovery-start` (R4.9 names the segment that hit it).
    this.armSegmentLimit(1);
    try {
      await this.channel.deliver({ type: 'recovery-start', recoveryId });
    } catch {
      // The host stopped iterating: handled by the stop cause below.
    }
    // R4.9 / R8.4: an abort between segments prevents the recovery request.
    const stoppedBetween = state.stopError();
    if (stoppedBetween !== undefined) {
      return this.end({ error: stoppedBetween, finishReason: undefined, recovery: turnRecovery, recoverySkipped: undefined });
    }

    // The recovery segment is sent once and never retried: a third request is never made (issue 4 row 7).
    const second = await this.runSegment(1, recoveryRequest, options.createId());
    const secondVerdict = second.verdict;
    const recovered =
      secondVerdict?.kind === 'ok' && secondVerdict.facts.nonWhitespaceText && secondVerdict.facts.terminalFrameSeen;
    turnRecovery.recovered = recovered === true;
    this.recordSample(second.record, { recoveryId, recoveryScheduled: true, recovered: turnRecovery.recovered });
    if (secondVerdict?.kind === 'ok' && recovered) {
      return this.end({
        error: undefined,
        finishReason: withoutDroppedToolCalls(secondVerdict.facts.finishReason),
        recovery: turnRecovery,
        recoverySkipped: undefined,
      });
    }
    return this.end({ error: describeRecoveryFailure(secondVerdict), finishReason: undefined, recovery: turnRecovery, recoverySkipped: undefined });
  }

  private end(ending: TurnEnding): TurnResult {
    clearTimeout(this.limitTimer);
    const { onHostAbort } = this;
    if (onHostAbort !== undefined) for (const signal of this.hostSignals) signal.removeEventListener('abort', onHostAbort);
    const { state, model, turnStartedAt } = this;
    return finishTurn(ending, { state, protocol: this.options.adapter.protocol, model, turnStartedAt, now: this.options.now });
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

function toUnexpectedError(thrown: unknown): TurnError {
  return new TurnError({
    kind: 'server',
    code: 'UNKNOWN',
    retryable: false,
    message: 'Unexpected failure in runTurn.',
    cause: thrown,
  });
}
