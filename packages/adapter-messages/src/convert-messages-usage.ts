import { readKnownCount, type Usage } from '@turnguard/core';
import { isRecord, type NativeRecord } from './messages-types.js';

/**
 * Messages usage → neutral usage (R5.1): a count the upstream did not send
 * stays `undefined`, never 0.
 *
 * Meaning of the fields (Anthropic semantics, kept as reported):
 * - `inputTokens` = `input_tokens`, the input that was neither read from nor
 *   written to the cache. Unlike OpenAI, it does NOT include cache reads: the
 *   SDK documents total input as input + cache_creation + cache_read.
 * - `cachedInputTokens` = `cache_read_input_tokens`,
 *   `cacheCreationInputTokens` = `cache_creation_input_tokens`.
 * - `reasoningTokens` = `output_tokens_details.thinking_tokens` (part of output).
 * - `totalTokens` = input + output + whichever cache counts were reported,
 *   derived only when input AND output are known. The SDK says the cache
 *   counters are "omitted when they don't apply" (src/lib/MessageStream.ts),
 *   so an absent cache counter adds nothing; an absent input or output makes
 *   the total unknown.
 */
function readCount(source: NativeRecord, key: string): number | undefined {
  return readKnownCount(source[key]);
}

export function convertMessagesUsage(nativeUsage: unknown): Usage {
  const usage = isRecord(nativeUsage) ? nativeUsage : {};
  const details = isRecord(usage['output_tokens_details']) ? usage['output_tokens_details'] : {};
  const inputTokens = readCount(usage, 'input_tokens');
  const outputTokens = readCount(usage, 'output_tokens');
  const cachedInputTokens = readCount(usage, 'cache_read_input_tokens');
  const cacheCreationInputTokens = readCount(usage, 'cache_creation_input_tokens');
  return {
    inputTokens,
    cachedInputTokens,
    cacheCreationInputTokens,
    outputTokens,
    reasoningTokens: readCount(details, 'thinking_tokens'),
    totalTokens:
      inputTokens === undefined || outputTokens === undefined
        ? undefined
        : inputTokens + outputTokens + (cachedInputTokens ?? 0) + (cacheCreationInputTokens ?? 0),
  };
}

/**
 * `message_delta.usage` is cumulative: each counter present replaces the
 * earlier value and is never added (SDK MessageStream #accumulateMessage;
 * fixture anthropic-message-delta-input-tokens sends a new input_tokens there).
 * Returns the merged native counters.
 */
export function mergeMessagesUsage(previous: NativeRecord, update: unknown): NativeRecord {
  if (!isRecord(update)) return previous;
  const merged: NativeRecord = { ...previous };
  for (const [key, value] of Object.entries(update)) {
    if (value !== null && value !== undefined) merged[key] = value;
  }
  return merged;
}

/** Neutral usage → native counters for an encoded stream: only known counts, never a 0 for unknown (R5.3). */
export function convertUsageToMessages(usage: Usage | undefined): NativeRecord {
  const native: NativeRecord = {};
  if (usage === undefined) return native;
  if (usage.inputTokens !== undefined) native['input_tokens'] = usage.inputTokens;
  if (usage.cacheCreationInputTokens !== undefined) native['cache_creation_input_tokens'] = usage.cacheCreationInputTokens;
  if (usage.cachedInputTokens !== undefined) native['cache_read_input_tokens'] = usage.cachedInputTokens;
  if (usage.outputTokens !== undefined) native['output_tokens'] = usage.outputTokens;
  if (usage.reasoningTokens !== undefined) native['output_tokens_details'] = { thinking_tokens: usage.reasoningTokens };
  return native;
}
