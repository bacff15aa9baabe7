import type { Usage } from '../types/usage.js';
import { USAGE_FIELDS } from '../types/usage.js';
import { emptyUsage, isKnownCount } from './empty-usage.js';

/**
 * A logical turn's usage: the sum of what its segments actually reported
 * (R5.2), with honesty flags.
 *
 * - `segmentCount`: how many segments (physical responses) the turn had.
 * - `segmentsWithUsage`: how many of them reported at least one known count.
 * - `complete`: see `aggregateUsage` for the exact rule. When `false`, the
 *   sums are a lower bound and must never be described as the turn's spend.
 */
export type AggregatedUsage = Usage & {
  complete: boolean;
  segmentCount: number;
  segmentsWithUsage: number;
};

/**
 * Sums per-segment usage of one logical turn (R5.1, R5.2).
 *
 * Per field: the sum of the segments' known counts; `undefined` when no
 * segment reported that field. Unknown is never turned into 0 and nothing is
 * estimated. A count is known when it is a finite number ≥ 0 (see
 * `isKnownCount`); anything else is treated as not reported.
 *
 * `complete` is `true` exactly when
 *   1. there is at least one segment (an empty turn has no reported spend to
 *      call whole), and
 *   2. every segment reported usage (at least one known count), and
 *   3. every segment reported the same set of known fields — the union of
 *      fields reported by any segment. A field that NO segment reported does
 *      not make the aggregate incomplete: it is simply `undefined`, and every
 *      field that has a number is a full sum over all segments.
 * Consequently, when `complete` is `true`, every numeric field of the
 * aggregate is the sum over ALL segments.
 *
 * The result does not depend on the order of `segments`.
 */
export function aggregateUsage(segments: ReadonlyArray<Usage | undefined>): AggregatedUsage {
  const totals = emptyUsage();
  // Per field: its sum, and whether some segment left it out while another reported it.
  let everyReportedFieldFromEverySegment = true;
  for (const field of USAGE_FIELDS) {
    let reporting = 0;
    let sum = 0;
    for (const segment of segments) {
      const count = segment?.[field];
      if (!isKnownCount(count)) continue;
      reporting += 1;
      sum += count;
    }
    if (reporting === 0) continue;
    totals[field] = sum;
    if (reporting < segments.length) everyReportedFieldFromEverySegment = false;
  }
  let segmentsWithUsage = 0;
  for (const segment of segments) if (reportsAnyCount(segment)) segmentsWithUsage += 1;
  const complete = segments.length > 0 && segmentsWithUsage === segments.length && everyReportedFieldFromEverySegment;
  return {
    inputTokens: totals.inputTokens,
    cachedInputTokens: totals.cachedInputTokens,
    cacheCreationInputTokens: totals.cacheCreationInputTokens,
    outputTokens: totals.outputTokens,
    reasoningTokens: totals.reasoningTokens,
    totalTokens: totals.totalTokens,
    complete,
    segmentCount: segments.length,
    segmentsWithUsage,
  };
}

function reportsAnyCount(segment: Usage | undefined): boolean {
  if (segment === undefined) return false;
  for (const field of USAGE_FIELDS) if (isKnownCount(segment[field])) return true;
  return false;
}
