import type { CompletionUsage } from 'openai/resources/completions';
import { readKnownCount, type Usage } from '@turnguard/core';
import { isRecord } from './chat-wire-hints.js';

/**
 * Chat `usage` → neutral usage (R5.1): a count the upstream did not send stays
 * `undefined`, never 0. `cached_tokens` and `reasoning_tokens` are breakdowns
 * of prompt/completion tokens (openai-node src/resources/completions.ts).
 * DeepSeek also sends `prompt_cache_hit_tokens` (deepseek-*.chunks.txt), used
 * when the details object is missing.
 */
export function convertChatUsage(raw: unknown): Usage {
  const usage = isRecord(raw) ? raw : {};
  const promptDetails = isRecord(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  const completionDetails = isRecord(usage.completion_tokens_details) ? usage.completion_tokens_details : {};
  return {
    inputTokens: readKnownCount(usage.prompt_tokens),
    cachedInputTokens: readKnownCount(promptDetails.cached_tokens) ?? readKnownCount(usage.prompt_cache_hit_tokens),
    cacheCreationInputTokens: readKnownCount(promptDetails.cache_write_tokens),
    outputTokens: readKnownCount(usage.completion_tokens),
    reasoningTokens: readKnownCount(completionDetails.reasoning_tokens),
    totalTokens: readKnownCount(usage.total_tokens),
  };
}

/**
 * Neutral usage → Chat `usage` for the encoder (R5.3): only known counts are
 * written; an unknown count is left out, never 0. `undefined` when nothing is known.
 */
export function toChatUsage(usage: Usage): Partial<CompletionUsage> | undefined {
  const out: Record<string, unknown> = {};
  if (usage.inputTokens !== undefined) out.prompt_tokens = usage.inputTokens;
  if (usage.outputTokens !== undefined) out.completion_tokens = usage.outputTokens;
  if (usage.totalTokens !== undefined) out.total_tokens = usage.totalTokens;
  const promptDetails: Record<string, number> = {};
  if (usage.cachedInputTokens !== undefined) promptDetails.cached_tokens = usage.cachedInputTokens;
  if (usage.cacheCreationInputTokens !== undefined) promptDetails.cache_write_tokens = usage.cacheCreationInputTokens;
  if (Object.keys(promptDetails).length > 0) out.prompt_tokens_details = promptDetails;
  if (usage.reasoningTokens !== undefined) out.completion_tokens_details = { reasoning_tokens: usage.reasoningTokens };
  return Object.keys(out).length > 0 ? (out as Partial<CompletionUsage>) : undefined;
}
