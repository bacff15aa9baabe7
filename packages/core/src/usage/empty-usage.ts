import type { Usage } from '../types/usage.js';

/** A usage record where every count is unknown (R5.1): never zeros. */
export function emptyUsage(): Usage {
  return {
    inputTokens: undefined,
    cachedInputTokens: undefined,
    cacheCreationInputTokens: undefined,
    outputTokens: undefined,
    reasoningTokens: undefined,
    totalTokens: undefined,
  };
}

/**
 * A reported count is "known" only when it is a finite, non-negative number.
 * NaN, Infinity or a negative value is not a count an upstream can have
 * reported, so it is treated as unknown rather than summed (R5.1).
 */
export function isKnownCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

/** A native usage field as a neutral count: the number when it is a known count, else unknown (R5.1). */
export function readKnownCount(value: unknown): number | undefined {
  return isKnownCount(value) ? value : undefined;
}
