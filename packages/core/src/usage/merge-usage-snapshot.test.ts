import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Usage } from '../types/usage.js';
import { USAGE_FIELDS } from '../types/usage.js';
import { emptyUsage } from './empty-usage.js';
import { mergeUsageSnapshot } from './merge-usage-snapshot.js';

function usage(partial: Partial<Usage>): Usage {
  return { ...emptyUsage(), ...partial };
}

describe('mergeUsageSnapshot (R5.1, R5.2 within one segment)', () => {
  it('overwrites cumulative counters instead of adding (Anthropic message_delta)', () => {
    // fixtures/messages/anthropic-message-delta-input-tokens: message_start says
    // input 43 / output 1, message_delta says input 61 / output 2 — the totals are 61 / 2.
    const start = usage({ inputTokens: 43, outputTokens: 1 });
    const delta = usage({ inputTokens: 61, outputTokens: 2 });
    expect(mergeUsageSnapshot(start, delta)).toEqual(usage({ inputTokens: 61, outputTokens: 2 }));
  });

  it('keeps a previous count the next snapshot does not report', () => {
    const start = usage({ inputTokens: 12, cacheCreationInputTokens: 0, outputTokens: 1 });
    const delta = usage({ outputTokens: 30 });
    expect(mergeUsageSnapshot(start, delta)).toEqual(
      usage({ inputTokens: 12, cacheCreationInputTokens: 0, outputTokens: 30 }),
    );
  });

  it('R5.1: stays unknown when neither side knows a field, and accepts missing snapshots', () => {
    expect(mergeUsageSnapshot(undefined, undefined)).toEqual(emptyUsage());
    expect(mergeUsageSnapshot(undefined, usage({ outputTokens: 5 }))).toEqual(usage({ outputTokens: 5 }));
    expect(mergeUsageSnapshot(usage({ outputTokens: 5 }), undefined)).toEqual(usage({ outputTokens: 5 }));
  });

  it('ignores a non-count (NaN) in the next snapshot', () => {
    expect(mergeUsageSnapshot(usage({ outputTokens: 5 }), usage({ outputTokens: Number.NaN }))).toEqual(
      usage({ outputTokens: 5 }),
    );
  });

  it('property: each field is next ?? previous, never a sum', () => {
    const count = fc.option(fc.nat({ max: 1_000_000 }), { nil: undefined });
    const usageArbitrary = fc.record({
      inputTokens: count,
      cachedInputTokens: count,
      cacheCreationInputTokens: count,
      outputTokens: count,
      reasoningTokens: count,
      totalTokens: count,
    });
    fc.assert(
      fc.property(usageArbitrary, usageArbitrary, (previous, next) => {
        const merged = mergeUsageSnapshot(previous, next);
        for (const field of USAGE_FIELDS) expect(merged[field]).toBe(next[field] ?? previous[field]);
      }),
      { numRuns: 300 },
    );
  });
});
