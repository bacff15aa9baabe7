import { formatCheckpointText, RECOVERY_INSTRUCTION } from './checkpoint-message.js';
import { estimateTokensFromBytes } from './estimate-context-tokens.js';
import { MIN_RECOVERY_OUTPUT_TOKENS, type StreamRecoveryConfig } from './recovery-config.js';

/** Why a cut segment was not recovered; content-free, safe for stats and errors (R4.10). */
export type RecoverySkipReason =
  | 'disabled'
  | 'not-eof'
  | 'no-reasoning'
  | 'text-produced'
  | 'tool-call-produced'
  | 'aborted'
  | 'deadline-passed'
  | 'recovery-limit'
  | 'checkpoint-too-large'
  | 'context-capacity'
  | 'output-budget';

export interface RecoveryDecisionInput {
  config: StreamRecoveryConfig;
  /** How segment 1 ended: only a clean EOF without a terminal frame can trigger (R4.1, R4.2). */
  segmentEnd: 'eof-without-terminal' | 'other';
  reasoningText: string;
  textProduced: boolean;
  /** Any tool-call event, also an unfinished one. */
  toolCallProduced: boolean;
  /** Segment 1's reported output tokens, when known. */
  segmentOutputTokens: number | undefined;
  recoveriesSoFar: number;
  aborted: boolean;
  nowMs: number;
  turnDeadlineAt: number | undefined;
  /** The host's own output cap from the original request. */
  hostMaxOutputTokens: number | undefined;
  /** Text bytes of the original input (images, data: URLs left out); undefined if it could not be read. */
  inputTextBytes: number | undefined;
}

export type RecoveryDecision =
  | { recover: true; maxOutputTokens: number; capacityCheck: 'passed' | 'window-unknown' }
  | { recover: false; reason: RecoverySkipReason };

const encoder = new TextEncoder();

/**
 * R4.1 output budget: the recovery cap, bounded by what is left of the host's
 * cap after segment 1's known output and by the model's own cap. Unknown
 * segment output subtracts nothing: we never invent a count (R5.1).
 */
export function computeRecoveryOutputBudget(
  recoveryMaxOutputTokens: number,
  hostMaxOutputTokens: number | undefined,
  modelMaxOutputTokens: number | undefined,
  segmentOutputTokens: number | undefined,
): number {
  const spent = segmentOutputTokens ?? 0;
  const hostRemaining = hostMaxOutputTokens === undefined ? Infinity : hostMaxOutputTokens - spent;
  const modelCap = modelMaxOutputTokens ?? Infinity;
  return Math.max(0, Math.min(recoveryMaxOutputTokens, hostRemaining, modelCap));
}

/** R4.1 trigger / R4.2 non-trigger, checked in the spec's order. Pure. */
export function decideRecovery(input: RecoveryDecisionInput): RecoveryDecision {
  const { config } = input;
  if (!config.enabled) return { recover: false, reason: 'disabled' };
  if (input.segmentEnd !== 'eof-without-terminal') return { recover: false, reason: 'not-eof' };
  if (input.textProduced) return { recover: false, reason: 'text-produced' };
  if (input.toolCallProduced) return { recover: false, reason: 'tool-call-produced' };
  if (input.reasoningText.trim() === '') return { recover: false, reason: 'no-reasoning' };
  if (input.aborted) return { recover: false, reason: 'aborted' };
  if (input.turnDeadlineAt !== undefined && input.nowMs >= input.turnDeadlineAt) {
    return { recover: false, reason: 'deadline-passed' };
  }
  if (input.recoveriesSoFar >= config.recoveriesPerTurn) return { recover: false, reason: 'recovery-limit' };
  // Over the limit → no recovery; never trimmed silently (R4.7).
  if (input.reasoningText.length > config.checkpointMaxChars) return { recover: false, reason: 'checkpoint-too-large' };

  const maxOutputTokens = computeRecoveryOutputBudget(
    config.recoveryMaxOutputTokens,
    input.hostMaxOutputTokens,
    config.modelMaxOutputTokens,
    input.segmentOutputTokens,
  );
  if (maxOutputTokens < MIN_RECOVERY_OUTPUT_TOKENS) return { recover: false, reason: 'output-budget' };

  if (config.contextWindowTokens === undefined) {
    // R4.7: with an unknown window we may not claim a capacity check passed.
    return { recover: true, maxOutputTokens, capacityCheck: 'window-unknown' };
  }
  if (input.inputTextBytes === undefined) return { recover: false, reason: 'context-capacity' };
  const addedBytes =
    encoder.encode(formatCheckpointText(input.reasoningText)).byteLength +
    encoder.encode(RECOVERY_INSTRUCTION).byteLength;
  const estimatedTokens = estimateTokensFromBytes(input.inputTextBytes + addedBytes) + maxOutputTokens;
  if (estimatedTokens > config.contextWindowTokens) return { recover: false, reason: 'context-capacity' };
  return { recover: true, maxOutputTokens, capacityCheck: 'passed' };
}
