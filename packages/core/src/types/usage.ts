/**
 * Token counts reported by the upstream for one segment (R5.1).
 * Every count is a number or `undefined` (unknown). Unknown is never 0:
 * a provider that did not report a count leaves it `undefined`.
 */
export interface Usage {
  inputTokens: number | undefined;
  cachedInputTokens: number | undefined;
  cacheCreationInputTokens: number | undefined;
  outputTokens: number | undefined;
  reasoningTokens: number | undefined;
  totalTokens: number | undefined;
}

export const USAGE_FIELDS = [
  'inputTokens',
  'cachedInputTokens',
  'cacheCreationInputTokens',
  'outputTokens',
  'reasoningTokens',
  'totalTokens',
] as const satisfies ReadonlyArray<keyof Usage>;

export type UsageField = (typeof USAGE_FIELDS)[number];
