import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Usage } from '../types/usage.js';
import { USAGE_FIELDS } from '../types/usage.js';
import { aggregateUsage } from './aggregate-usage.js';
import { emptyUsage } from './empty-usage.js';

const countArbitrary = fc.option(fc.nat({ max: 10_000_000 }), { nil: undefined });
const usageArbitrary: fc.Arbitrary<Usage> = fc.record({
  inputTokens: countArbitrary,
  cachedInputTokens: countArbitrary,
  cacheCreationInputTokens: countArbitrary,
  outputTokens: countArbitrary,
  reasoningTokens: countArbitrary,
  totalTokens: countArbitrary,
});
const segmentsArbitrary = fc.array(fc.option(usageArbitrary, { nil: undefined }), { maxLength: 8 });

function usage(partial: Partial<Usage>): Usage {
  return { ...emptyUsage(), ...partial };
}

describe('aggregateUsage (R5.1, R5.2)', () => {
  it('R5.1: emptyUsage has every field unknown, never 0', () => {
    expect(USAGE_FIELDS.map((field) => emptyUsage()[field])).toEqual(USAGE_FIELDS.map(() => undefined));
  });

  it('R5.2: sums known counts of complete segments', () => {
    const result = aggregateUsage([
      usage({ inputTokens: 100, outputTokens: 20 }),
      usage({ inputTokens: 130, outputTokens: 5 }),
    ]);
    expect(result).toEqual({
      ...usage({ inputTokens: 230, outputTokens: 25 }),
      complete: true,
      segmentCount: 2,
      segmentsWithUsage: 2,
    });
  });

  it('R5.2: a segment without usage makes the aggregate incomplete and adds nothing', () => {
    const result = aggregateUsage([usage({ inputTokens: 100, outputTokens: 20 }), undefined]);
    expect(result).toMatchObject({ inputTokens: 100, outputTokens: 20, complete: false, segmentsWithUsage: 1 });
  });

  it('R5.2: a usage object with every field unknown counts as no usage', () => {
    const result = aggregateUsage([usage({ outputTokens: 3 }), emptyUsage()]);
    expect(result).toMatchObject({ outputTokens: 3, complete: false, segmentCount: 2, segmentsWithUsage: 1 });
  });

  it('R5.2: a field reported by one segment but not another makes it incomplete', () => {
    const result = aggregateUsage([
      usage({ inputTokens: 10, outputTokens: 1, reasoningTokens: 7 }),
      usage({ inputTokens: 10, outputTokens: 2 }),
    ]);
    expect(result).toMatchObject({ reasoningTokens: 7, inputTokens: 20, complete: false, segmentsWithUsage: 2 });
  });

  it('R5.1: a field no segment reported stays unknown and does not break completeness', () => {
    const result = aggregateUsage([usage({ outputTokens: 1 }), usage({ outputTokens: 2 })]);
    expect(result.reasoningTokens).toBeUndefined();
    expect(result.complete).toBe(true);
  });

  it('R5.1: zero is a known count, kept as 0', () => {
    expect(aggregateUsage([usage({ cachedInputTokens: 0 })])).toMatchObject({ cachedInputTokens: 0, complete: true });
  });

  it('R5.2: no segments means nothing known and not complete', () => {
    expect(aggregateUsage([])).toEqual({ ...emptyUsage(), complete: false, segmentCount: 0, segmentsWithUsage: 0 });
  });

  it('R5.1: NaN, Infinity and negative counts are treated as unknown, not summed', () => {
    const result = aggregateUsage([
      usage({ inputTokens: Number.NaN, outputTokens: 4 }),
      usage({ inputTokens: -1, outputTokens: Number.POSITIVE_INFINITY }),
    ]);
    expect(result).toMatchObject({ inputTokens: undefined, outputTokens: 4, complete: false });
  });

  describe('properties', () => {
    it('R5.1: a field is unknown exactly when no segment reported it (unknown never becomes 0)', () => {
      fc.assert(
        fc.property(segmentsArbitrary, (segments) => {
          const result = aggregateUsage(segments);
          for (const field of USAGE_FIELDS) {
            const reported = segments.some((segment) => segment?.[field] !== undefined);
            expect(result[field] === undefined).toBe(!reported);
          }
        }),
        { numRuns: 500 },
      );
    });

    it('R5.2: each known field is the exact sum of the reported counts', () => {
      fc.assert(
        fc.property(segmentsArbitrary, (segments) => {
          const result = aggregateUsage(segments);
          for (const field of USAGE_FIELDS) {
            const reported = segments.flatMap((segment) => (segment?.[field] === undefined ? [] : [segment[field]]));
            if (reported.length > 0) expect(result[field]).toBe(reported.reduce((sum, count) => sum + count, 0));
          }
        }),
        { numRuns: 500 },
      );
    });

    it('R5.2: complete holds exactly when every segment reported the same non-empty set of fields', () => {
      fc.assert(
        fc.property(segmentsArbitrary, (segments) => {
          const fieldSets = segments.map((segment) =>
            USAGE_FIELDS.filter((field) => segment?.[field] !== undefined).join(','),
          );
          const expected = segments.length > 0 && fieldSets.every((set) => set !== '' && set === fieldSets[0]);
          const result = aggregateUsage(segments);
          expect(result.complete).toBe(expected);
          expect(result.segmentCount).toBe(segments.length);
          expect(result.segmentsWithUsage).toBe(fieldSets.filter((set) => set !== '').length);
        }),
        { numRuns: 500 },
      );
    });

    it('R5.2: the aggregate does not depend on segment order', () => {
      fc.assert(
        fc.property(
          segmentsArbitrary.chain((segments) =>
            fc.tuple(fc.constant(segments), fc.shuffledSubarray(segments, { minLength: segments.length })),
          ),
          ([segments, shuffled]) => {
            expect(aggregateUsage(shuffled)).toEqual(aggregateUsage(segments));
          },
        ),
        { numRuns: 300 },
      );
    });
  });
});
