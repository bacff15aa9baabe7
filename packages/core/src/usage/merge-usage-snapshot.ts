import type { Usage } from '../types/usage.js';
import { USAGE_FIELDS } from '../types/usage.js';
import { emptyUsage, isKnownCount } from './empty-usage.js';

/**
 * Folds a newer usage report of the SAME segment into the previous one.
 *
 * Within one streamed response, usage reports are cumulative snapshots, not
 * increments: Anthropic's `message_delta.usage.output_tokens` is the running
 * total, and its other counters "are cumulative whole-message totals that are
 * omitted when they don't apply, so overwrite when present and never add"
 * (anthropic-sdk-typescript src/lib/MessageStream.ts `#accumulateMessage`).
 * So a known count in `next` overwrites; a count `next` does not report keeps
 * `previous`'s value. Adding here would double-count (R5.2).
 *
 * Across segments (separate physical responses) use `aggregateUsage` instead.
 */
export function mergeUsageSnapshot(previous: Usage | undefined, next: Usage | undefined): Usage {
  const merged = emptyUsage();
  for (const field of USAGE_FIELDS) {
    const nextCount = next?.[field];
    const previousCount = previous?.[field];
    if (isKnownCount(nextCount)) {
      merged[field] = nextCount;
    } else if (isKnownCount(previousCount)) {
      merged[field] = previousCount;
    }
  }
  return merged;
}
