import type { ProtocolAdapter } from '../adapter/protocol-adapter.js';
import type { TurnError } from '../errors/turn-error.js';
import type { FinishReason } from '../types/finish-reason.js';
import { pickKnownUsage } from './build-segment-record.js';
import { decideRecovery, type RecoveryDecision } from './decide-recovery.js';
import { countPromptTextBytes } from './estimate-context-tokens.js';
import { createStreamCutError, type SegmentVerdict } from './judge-segment-attempt.js';
import type { StreamRecoveryConfig } from './recovery-config.js';

// The recovery of a cut segment 1 (R4): whether to send it, and what its outcome means for the turn.

export type CutFacts = Extract<SegmentVerdict, { kind: 'cut' }>['facts'];

/**
 * R4.5: the recovery segment's tool calls are never handed to the host, so
 * its finish must not say tool calls follow: a host that reads
 * `tool_calls`/`tool_use` and iterates the calls would find none.
 */
export function withoutDroppedToolCalls(finishReason: FinishReason | undefined): FinishReason | undefined {
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

export function decideSegmentRecovery<Native extends object>(
  options: { adapter: ProtocolAdapter<Native>; request: Native; recovery: StreamRecoveryConfig },
  facts: CutFacts,
  aborted: boolean,
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
    aborted,
    nowMs,
    turnDeadlineAt,
    hostMaxOutputTokens,
    inputTextBytes,
  });
}

/** R4.9: every recovery failure is STREAM_CUT (not retryable); an abort stays ABORTED; a time limit is named. */
export function describeRecoveryFailure(verdict: SegmentVerdict | undefined): TurnError {
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
