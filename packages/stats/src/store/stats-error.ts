import { TurnError } from '@turnguard/core';

/** Stable codes of the errors this package raises (all `TurnError`, R2.1). */
export type StatsErrorCode =
  | 'STATS_INVALID_RECORD'
  | 'STATS_FILE_CORRUPT'
  | 'STATS_FILE_NEWER'
  | 'STATS_STORE_CLOSED'
  | 'STATS_WRITE_FAILED'
  | 'STATS_INVALID_OPTIONS';

/**
 * Builds a content-free TurnError: messages name fields and paths, never a
 * value taken from a record, so nothing from a prompt can leak (R4.10).
 */
export function createStatsError(code: StatsErrorCode, message: string, details?: Record<string, unknown>, cause?: unknown): TurnError {
  return new TurnError({ kind: 'invalid_request', code, message, retryable: false, details: details ?? {}, cause });
}
