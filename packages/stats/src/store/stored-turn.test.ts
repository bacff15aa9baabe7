import { TurnError, type TurnOutcome } from '@turnguard/core';
import { describe, expect, it } from 'vitest';
import { deriveStoredTurnOutcome, pickTurnFields, readRetainedTurn, type StoredTurnOutcome } from './stored-turn.js';
import { makeTurnRecord } from './test-turns.js';

function catchError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('R6.2 stored turn outcome derived from core\'s TurnRecord', () => {
  it.each<[TurnOutcome, boolean, StoredTurnOutcome]>([
    ['ok', false, 'ok'],
    ['ok', true, 'recovered'],
    ['failed', false, 'failed'],
    ['failed', true, 'failed'],
    ['aborted', false, 'aborted'],
    ['aborted', true, 'aborted'],
  ])('outcome %s + recovered %s is stored as %s', (outcome, recovered, stored) => {
    expect(deriveStoredTurnOutcome({ outcome, recovered })).toBe(stored);
    expect(pickTurnFields(makeTurnRecord({ outcome, recovered, time: 7 }), 0)).toEqual({ time: 7, outcome: stored });
  });

  it('keeps only time and outcome of a full core record', () => {
    const picked = pickTurnFields(makeTurnRecord({ time: 9, recovered: true, recoveryId: 'rec_1', physicalRequests: 2 }), 0);
    expect(picked).toEqual({ time: 9, outcome: 'recovered' });
  });

  it('uses now for an untyped caller that omits time', () => {
    const { time: _omitted, ...withoutTime } = makeTurnRecord();
    expect(pickTurnFields(withoutTime, 1234).time).toBe(1234);
  });

  it('rejects a record that is not core-shaped with a typed TurnError', () => {
    for (const bad of [null, 'ok', [], { ...makeTurnRecord(), outcome: 'recovered' }, { ...makeTurnRecord(), outcome: 'done' }, { ...makeTurnRecord(), time: -1 }]) {
      const caught = catchError(() => pickTurnFields(bad, 0));
      expect(TurnError.isInstance(caught) && caught.code).toBe('STATS_INVALID_RECORD');
    }
  });
});

describe('R6.4 retained turns read back from stats.json', () => {
  it('accepts every stored outcome, including recovered, which a new record may not carry', () => {
    expect(readRetainedTurn({ time: 3, outcome: 'recovered' })).toEqual({ time: 3, outcome: 'recovered' });
    expect(readRetainedTurn({ outcome: 'aborted' })).toEqual({ time: 0, outcome: 'aborted' });
    const caught = catchError(() => readRetainedTurn({ time: 3, outcome: 'done' }));
    expect(TurnError.isInstance(caught) && caught.code).toBe('STATS_INVALID_RECORD');
  });
});
