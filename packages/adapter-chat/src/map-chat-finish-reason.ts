import type { FinishReason, UnifiedFinishReason } from '@turnguard/core';

/**
 * Chat `finish_reason` → `{ unified, raw }` (vercel/ai
 * map-openai-compatible-finish-reason.ts). `error` is OpenRouter's value for a
 * model that failed mid-stream (wire-formats §1.3).
 */
export function mapChatFinishReason(raw: string): FinishReason {
  return { unified: mapUnified(raw), raw };
}

function mapUnified(raw: string): UnifiedFinishReason {
  switch (raw) {
    case 'stop':
      return 'stop';
    case 'length':
      return 'length';
    case 'tool_calls':
    case 'function_call':
      return 'tool-calls';
    case 'content_filter':
      return 'content-filter';
    case 'error':
      return 'error';
    default:
      return 'other';
  }
}

/** Neutral finish reason → Chat `finish_reason` for the encoder: the raw value when there is one. */
export function toChatFinishReason(finishReason: FinishReason): string {
  if (finishReason.raw !== undefined && finishReason.raw !== '') return finishReason.raw;
  const unified = finishReason.unified;
  switch (unified) {
    case 'stop':
      return 'stop';
    case 'length':
      return 'length';
    case 'tool-calls':
      return 'tool_calls';
    case 'content-filter':
      return 'content_filter';
    case 'error':
      return 'error';
    case 'other':
      return 'stop';
    default: {
      const _exhaustive: never = unified;
      return _exhaustive;
    }
  }
}
