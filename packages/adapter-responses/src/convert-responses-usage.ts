import { readKnownCount, type Usage } from '@turnguard/core';
import type { ResponseUsage } from 'openai/resources/responses/responses';
import { isJsonObject, type JsonObject } from './native-json.js';

/**
 * Terminal `response.usage` → neutral usage (R5.1). A count the upstream did
 * not send stays `undefined`, never 0. `cached_tokens` is part of
 * `input_tokens` and `reasoning_tokens` part of `output_tokens` (openai-node
 * `ResponseUsage`), so they are copied, not subtracted. Returns `undefined`
 * when there is no usage object at all (e.g. `response.failed` has `usage:null`).
 */
export function convertResponsesUsage(usage: unknown): Usage | undefined {
  if (!isJsonObject(usage)) return undefined;
  const inputDetails = isJsonObject(usage.input_tokens_details) ? usage.input_tokens_details : {};
  const outputDetails = isJsonObject(usage.output_tokens_details) ? usage.output_tokens_details : {};
  return {
    inputTokens: readKnownCount(usage.input_tokens),
    cachedInputTokens: readKnownCount(inputDetails.cached_tokens),
    cacheCreationInputTokens: readKnownCount(inputDetails.cache_write_tokens),
    outputTokens: readKnownCount(usage.output_tokens),
    reasoningTokens: readKnownCount(outputDetails.reasoning_tokens),
    totalTokens: readKnownCount(usage.total_tokens),
  };
}

/**
 * Neutral usage → `ResponseUsage` for a re-encoded stream. R5.3: only known
 * counts are written; an unknown count is left out, not sent as 0 (the SDK
 * type marks them required, hence the cast).
 */
export function convertToResponsesUsage(usage: Usage): ResponseUsage {
  const inputDetails: JsonObject = {
    ...(usage.cachedInputTokens !== undefined ? { cached_tokens: usage.cachedInputTokens } : {}),
    ...(usage.cacheCreationInputTokens !== undefined ? { cache_write_tokens: usage.cacheCreationInputTokens } : {}),
  };
  const nativeUsage: JsonObject = {
    ...(usage.inputTokens !== undefined ? { input_tokens: usage.inputTokens } : {}),
    ...(Object.keys(inputDetails).length > 0 ? { input_tokens_details: inputDetails } : {}),
    ...(usage.outputTokens !== undefined ? { output_tokens: usage.outputTokens } : {}),
    ...(usage.reasoningTokens !== undefined ? { output_tokens_details: { reasoning_tokens: usage.reasoningTokens } } : {}),
    ...(usage.totalTokens !== undefined ? { total_tokens: usage.totalTokens } : {}),
  };
  return nativeUsage as unknown as ResponseUsage;
}
