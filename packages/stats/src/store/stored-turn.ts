import type { TurnOutcome, TurnRecord } from '@turnguard/core';
import { readTime } from './sample-fields.js';
import { createStatsError } from './stats-error.js';

/*
 * The sink contract (`StatsSink`, `TurnRecord`, `TurnOutcome`) is core's
 * (packages/core/src/turn/stats-sink.ts); this package never re-declares it.
 * What differs is only what the FILE stores: R6.2 counts recovered turns as
 * their own bucket, where core reports them as `ok` + `recovered: true`.
 */

/** How `stats.json` counts a logical turn (R6.2): one bucket per value. */
export type StoredTurnOutcome = 'ok' | 'failed' | 'recovered' | 'aborted';

export const STORED_TURN_OUTCOMES: ReadonlyArray<StoredTurnOutcome> = ['ok', 'failed', 'recovered', 'aborted'];

/** A retained logical turn: its time and stored outcome, nothing else (R6.2, R4.10). */
export interface RetainedTurn {
  time: number;
  outcome: StoredTurnOutcome;
}

const CORE_TURN_OUTCOMES: ReadonlySet<string> = new Set<TurnOutcome>(['ok', 'failed', 'aborted']);
const STORED_OUTCOME_SET: ReadonlySet<string> = new Set<StoredTurnOutcome>(STORED_TURN_OUTCOMES);

/** Core's `ok` + `recovered: true` is stored as `recovered`; every other outcome is stored as is. */
export function deriveStoredTurnOutcome(turn: Pick<TurnRecord, 'outcome' | 'recovered'>): StoredTurnOutcome {
  const outcome = turn.outcome;
  switch (outcome) {
    case 'ok':
      return turn.recovered === true ? 'recovered' : 'ok';
    case 'failed':
    case 'aborted':
      return outcome;
    default: {
      const _exhaustive: never = outcome;
      return _exhaustive;
    }
  }
}

function assertObject(input: unknown, what: string): Record<string, unknown> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw createStatsError('STATS_INVALID_RECORD', `a stats ${what} must be an object`);
  }
  return input as Record<string, unknown>;
}

/**
 * R6.2: keeps only the end time and the derived outcome of core's record;
 * model, usage, ids… are never written. A bare `outcome: 'recovered'` is
 * not core's contract and is rejected with a typed error. Core always sets
 * `time`; an untyped caller that omits it gets `now`.
 */
export function pickTurnFields(input: unknown, now: number): RetainedTurn {
  const source = assertObject(input, 'turn record');
  const outcome = source['outcome'];
  if (typeof outcome !== 'string' || !CORE_TURN_OUTCOMES.has(outcome)) {
    throw createStatsError(
      'STATS_INVALID_RECORD',
      'stats turn field "outcome" must be ok, failed or aborted (a recovered turn is ok with recovered: true)',
      { field: 'outcome' },
    );
  }
  const stored = deriveStoredTurnOutcome({ outcome: outcome as TurnOutcome, recovered: source['recovered'] === true });
  return { time: source['time'] === undefined ? now : readTime(source['time']), outcome: stored };
}

/** Re-reads a turn already in `stats.json`, whose outcome is a stored one; a missing time reads as 0. */
export function readRetainedTurn(input: unknown): RetainedTurn {
  const source = assertObject(input, 'retained turn');
  const outcome = source['outcome'];
  if (typeof outcome !== 'string' || !STORED_OUTCOME_SET.has(outcome)) {
    throw createStatsError('STATS_INVALID_RECORD', 'retained turn field "outcome" must be ok, failed, recovered or aborted', { field: 'outcome' });
  }
  return { time: source['time'] === undefined ? 0 : readTime(source['time']), outcome: outcome as StoredTurnOutcome };
}
