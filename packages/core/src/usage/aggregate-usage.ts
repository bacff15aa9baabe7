import type { Usage, UsageField } from '../types/usage.js';
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
  const reportingSegments = new Map<UsageField, number>();
  let segmentsWithUsage = 0;

  for (const segment of segments) {
    const knownFields = USAGE_FIELDS.filter((field) => isKnownCount(segment?.[field]));
    if (knownFields.length === 0) continue;
    segmentsWithUsage += 1;
    for (const field of knownFields) {
      // knownFields only holds fields whose count passed isKnownCount.
      const count = segment?.[field] as number;
      totals[field] = (totals[field] ?? 0) + count;
      reportingSegments.set(field, (reportingSegments.get(field) ?? 0) + 1);
    }
  }

  const everyReportedFieldFromEverySegment = [...reportingSegments.values()].every(
    (reportingCount) => reportingCount === segments.length,
  );
  const complete =
    segments.length > 0 && segmentsWithUsage === segments.length && everyReportedFieldFromEverySegment;

  return { ...totals, complete, segmentCount: segments.length, segmentsWithUsage };
}
