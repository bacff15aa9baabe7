import type { TurnError } from '../errors/turn-error.js';
import type { FinishReason } from '../types/finish-reason.js';
import { aggregateUsage, type AggregatedUsage } from '../usage/index.js';
import type { RecoverySkipReason } from './decide-recovery.js';
import { pickKnownUsage } from './build-segment-record.js';
import type { TurnOutcome } from './stats-sink.js';
import type { Turn } from './turn.js';
import type { TurnRecovery, TurnResult } from './turn-result.js';

export interface TurnEnding {
  error: TurnError | undefined;
  finishReason: FinishReason | undefined;
  recovery: TurnRecovery | undefined;
  recoverySkipped: RecoverySkipReason | undefined;
}

/**
 * Ends the logical turn: one aggregated usage event with known counts only
 * (R5.2, R5.3) when anything was reported, then exactly one final event
 * (`finish` or `error`), then `recordTurn` once (R6.2).
 */
export function finishTurn<Native extends object>(turn: Turn<Native>, ending: TurnEnding): TurnResult {
  const chain = turn.chainRun;
  // A chain's answer is the last destination's: the one a request went to last (a recovery or continuation included).
  if (chain !== undefined && ending.error === undefined) chain.answer();
  // R11.7: the model that answered (or was asked last); its usage is the turn's, never mixed with another model's.
  const model = chain === undefined ? turn.model : (chain.answeredBy?.model ?? chain.lastTried?.model ?? turn.model);
  const usage = answerUsage(turn, model);
  const knownUsage = pickKnownUsage(usage);
  postUsage(turn, knownUsage);
  const finishReason = ending.error === undefined ? hostFinishReason(turn, ending.finishReason) : undefined;
  if (ending.error !== undefined) turn.events.post({ type: 'error', error: ending.error });
  else if (finishReason !== undefined) turn.events.post({ type: 'finish', finishReason });

  const endedAt = turn.options.now();
  const durationMs = endedAt - turn.startedAt;
  const chainFacts =
    chain === undefined
      ? {}
      : { chain: chain.entries.map((entry) => ({ ...entry })), fallbacks: chain.fallbacks, continued: chain.continuations > 0 };
  turn.recordTurn(() => ({
    time: turn.startedAt,
    protocol: turn.options.adapter.protocol,
    model,
    outcome: turnOutcome(ending.error),
    errorCode: ending.error?.code,
    recovered: ending.recovery?.recovered === true,
    recoveryId: ending.recovery?.recoveryId,
    physicalRequests: turn.segments.length,
    durationMs,
    usage: knownUsage,
    usageComplete: usage.complete,
    ...chainFacts,
  }));
  return {
    outcome: ending.error === undefined ? 'ok' : 'error',
    error: ending.error,
    finishReason,
    usage,
    segments: [...turn.segments],
    recovery: ending.recovery,
    recoverySkipped: ending.recoverySkipped,
    warnings: Object.freeze(turn.warnings),
    durationMs,
    model,
    ...chainFacts,
  };
}

/**
 * The answer's usage: only segments that streamed a 2xx body can have spent
 * tokens (a 429 did not), and in a chain only the answering model's (R5,
 * R11.7); a held turn's dropped attempt is its own sample, never the
 * answer's (decision 0430).
 */
function answerUsage<Native extends object>(turn: Turn<Native>, model: string): AggregatedUsage {
  const chain = turn.chainRun;
  const streamed = turn.segments.filter((segment) => segment.streamed && (chain === undefined || (segment.model === model && !chain.droppedRequestIds.has(segment.requestId))));
  return aggregateUsage(streamed.map((segment) => segment.usage));
}

/** One usage event with the known counts only, when anything was reported (R5.2, R5.3). */
function postUsage<Native extends object>(turn: Turn<Native>, knownUsage: ReturnType<typeof pickKnownUsage>): void {
  if (Object.keys(knownUsage).length === 0) return;
  turn.events.post({
    type: 'usage',
    usage: {
      inputTokens: knownUsage.inputTokens,
      cachedInputTokens: knownUsage.cachedInputTokens,
      cacheCreationInputTokens: knownUsage.cacheCreationInputTokens,
      outputTokens: knownUsage.outputTokens,
      reasoningTokens: knownUsage.reasoningTokens,
      totalTokens: knownUsage.totalTokens,
    },
  });
}

/**
 * The finish reason as the host's protocol can read it: a `raw` string is
 * its own protocol's word (`end_turn` means nothing to a Chat client), so
 * an answer from another family (R11.1) reaches the host by its unified
 * reason alone, for the host to name in its own protocol.
 */
function hostFinishReason<Native extends object>(turn: Turn<Native>, finishReason: FinishReason | undefined): FinishReason {
  if (finishReason === undefined) return { unified: 'other', raw: undefined };
  const answeredBy = turn.chainRun?.answeredBy;
  if (answeredBy === undefined || answeredBy.protocol === turn.options.adapter.protocol) return finishReason;
  return { unified: finishReason.unified, raw: undefined };
}

function turnOutcome(error: TurnError | undefined): TurnOutcome {
  if (error === undefined) return 'ok';
  return error.kind === 'aborted' ? 'aborted' : 'failed';
}
