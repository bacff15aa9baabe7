import type { StoredSample } from './sample-fields.js';

/** A complete, valid physical sample for tests; every R6.1 field of core's set to a non-default value (the fail-over fields absent). */
export function createTestSample(overrides: Partial<StoredSample> = {}): StoredSample {
  return {
    time: Date.UTC(2026, 8, 30, 10, 15, 0),
    protocol: 'messages',
    model: 'claude-sonnet-4',
    ok: false,
    errorCode: 'STREAM_CUT',
    truncated: true,
    durationMs: 61_234,
    ttftMs: 812,
    decodeWindowMs: 60_100,
    usage: { inputTokens: 5000, cachedInputTokens: 1200, cacheCreationInputTokens: 300, outputTokens: 4100, reasoningTokens: 3900, totalTokens: 9100 },
    noUsage: false,
    recoveryId: 'rec_01J9Z',
    attempt: 1,
    recoveryAttempt: true,
    recoveryScheduled: true,
    recovered: true,
    warnings: ['image_unreadable', 'dropped_input'],
    ...overrides,
  };
}
