import type { FinishReason, UnifiedFinishReason } from '@turnguard/core';

/**
 * Messages `stop_reason` → neutral finish reason (values: SDK `StopReason`,
 * wire-formats §2.3). The raw string is always kept.
 * - `pause_turn` is not an end of the answer: the content must be sent back
 *   as-is to continue (SDK doc), so it maps to `other`, not `stop`.
 * - `model_context_window_exceeded` stops generation for lack of room, like
 *   an output cap: `length`.
 */
export function mapMessagesStopReason(stopReason: string | null | undefined): FinishReason {
  const raw = stopReason ?? undefined;
  switch (raw) {
    case 'end_turn':
    case 'stop_sequence':
      return { unified: 'stop', raw };
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return { unified: 'length', raw };
    case 'tool_use':
      return { unified: 'tool-calls', raw };
    case 'refusal':
      return { unified: 'content-filter', raw };
    default:
      return { unified: 'other', raw };
  }
}

const KNOWN_STOP_REASONS: ReadonlySet<string> = new Set([
  'end_turn',
  'max_tokens',
  'stop_sequence',
  'tool_use',
  'pause_turn',
  'refusal',
  'model_context_window_exceeded',
]);

/** Neutral finish reason → a `stop_reason` the SDK knows: the raw value when it is one, else by unified reason. */
export function mapFinishReasonToMessages(finishReason: FinishReason): string {
  if (finishReason.raw !== undefined && KNOWN_STOP_REASONS.has(finishReason.raw)) return finishReason.raw;
  const unified: UnifiedFinishReason = finishReason.unified;
  switch (unified) {
    case 'stop':
    case 'other':
    case 'error':
      return 'end_turn';
    case 'length':
      return 'max_tokens';
    case 'tool-calls':
      return 'tool_use';
    case 'content-filter':
      return 'refusal';
    default: {
      const _exhaustive: never = unified;
      return String(_exhaustive);
    }
  }
}
