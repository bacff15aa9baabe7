import type { TurnRecord } from '@turnguard/core';
import type { StoredTurnOutcome } from './stored-turn.js';

/** A complete core `TurnRecord` (R6.2) for tests: a plain, successful, unrecovered chat turn unless overridden. */
export function makeTurnRecord(overrides: Partial<TurnRecord> = {}): TurnRecord {
  return {
    time: Date.UTC(2026, 8, 30, 10, 16, 0),
    protocol: 'chat',
    model: 'gpt-4.1',
    outcome: 'ok',
    errorCode: undefined,
    recovered: false,
    recoveryId: undefined,
    physicalRequests: 1,
    durationMs: 1_500,
    usage: { inputTokens: 120, outputTokens: 40 },
    usageComplete: true,
    ...overrides,
  };
}

/** The core record that the store counts as `stored`: `recovered` is core's `ok` + `recovered: true` after 2 requests. */
export function makeTurnRecordCountedAs(stored: StoredTurnOutcome, overrides: Partial<TurnRecord> = {}): TurnRecord {
  switch (stored) {
    case 'ok':
      return makeTurnRecord(overrides);
    case 'recovered':
      return makeTurnRecord({ recovered: true, recoveryId: 'rec_test', physicalRequests: 2, ...overrides });
    case 'failed':
      return makeTurnRecord({ outcome: 'failed', errorCode: 'STREAM_CUT', ...overrides });
    case 'aborted':
      return makeTurnRecord({ outcome: 'aborted', errorCode: 'ABORTED', ...overrides });
    default: {
      const _exhaustive: never = stored;
      return _exhaustive;
    }
  }
}
