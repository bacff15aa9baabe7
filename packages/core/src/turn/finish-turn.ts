import type { Protocol } from '../adapter/protocol-adapter.js';
import type { TurnError } from '../errors/turn-error.js';
import type { FinishReason } from '../types/finish-reason.js';
import { aggregateUsage } from '../usage/index.js';
import { holdShapes } from '../internal/held-shapes.js';
import type { RecoverySkipReason } from './decide-recovery.js';
import { pickKnownUsage } from './build-segment-record.js';
import type { TurnOutcome } from './stats-sink.js';
import type { TurnState } from './turn-state.js';
import type { TurnRecovery, TurnResult } from './turn-result.js';

export interface TurnEnding {
  error: TurnError | undefined;
  finishReason: FinishReason | undefined;
  recovery: TurnRecovery | undefined;
  recoverySkipped: RecoverySkipReason | undefined;
}

export interface FinishTurnContext {
  state: TurnState;
  protocol: Protocol;
  model: string;
  turnStartedAt: number;
  now: () => number;
}

/**
 * A result of the shape `finishTurn` returns (same keys, same order, value
 * kinds alike), held so the host's code that reads `run.result` is not
 * deoptimised after each turn's full GCs (decision 0282).
 */
holdShapes([{
  outcome: 'ok',
  error: undefined,
  finishReason: undefined,
  usage: undefined,
  segments: [],
  recovery: undefined,
  recoverySkipped: undefined,
  warnings: Object.freeze([]),
  durationMs: 0.5,
}]);

/**
 * Ends the logical turn: one aggregated usage event with known counts only
 * (R5.2, R5.3) when anything was reported, then exactly one final event
 * (`finish` or `error`), then `recordTurn` once (R6.2).
 */
export function finishTurn(ending: TurnEnding, context: FinishTurnContext): TurnResult {
  const { state } = context;
  // Only segments that streamed a 2xx body can have spent tokens; a 429 did not.
  const streamed = state.segments.filter((segment) => segment.streamed);
  const usage = aggregateUsage(streamed.map((segment) => segment.usage));
  const knownUsage = pickKnownUsage(usage);
  if (Object.keys(knownUsage).length > 0) {
    state.channel.post({
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
  const finishReason =
    ending.error === undefined ? ending.finishReason ?? { unified: 'other', raw: undefined } : undefined;
  if (ending.error !== undefined) state.channel.post({ type: 'error', error: ending.error });
  else if (finishReason !== undefined) state.channel.post({ type: 'finish', finishReason });

  const endedAt = context.now();
  state.recordTurn(() => ({
    time: context.turnStartedAt,
    protocol: context.protocol,
    model: context.model,
    outcome: turnOutcome(ending.error),
    errorCode: ending.error?.code,
    recovered: ending.recovery?.recovered === true,
    recoveryId: ending.recovery?.recoveryId,
    physicalRequests: state.segments.length,
    durationMs: endedAt - context.turnStartedAt,
    usage: knownUsage,
    usageComplete: usage.complete,
  }));
  return {
    outcome: ending.error === undefined ? 'ok' : 'error',
    error: ending.error,
    finishReason,
    usage,
    segments: [...state.segments],
    recovery: ending.recovery,
    recoverySkipped: ending.recoverySkipped,
    warnings: Object.freeze(state.warnings),
    durationMs: endedAt - context.turnStartedAt,
  };
}

function turnOutcome(error: TurnError | undefined): TurnOutcome {
  if (error === undefined) return 'ok';
  return error.kind === 'aborted' ? 'aborted' : 'failed';
}
