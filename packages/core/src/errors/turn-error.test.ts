import { describe, expect, it } from 'vitest';
import { TurnError } from './turn-error.js';

describe('TurnError (R2.1)', () => {
  it('is recognised across package copies by its Symbol.for marker', () => {
    const error = new TurnError({ kind: 'rate_limit', message: 'slow down', status: 429 });
    const lookalike = Object.assign(Object.create(null), { [Symbol.for('turnguard.TurnError')]: true });
    expect(TurnError.isInstance(error)).toBe(true);
    expect(TurnError.isInstance(lookalike)).toBe(true);
    expect(TurnError.isInstance(new Error('x'))).toBe(false);
    expect(TurnError.isInstance(undefined)).toBe(false);
  });

  it('derives code and retryability from the kind unless given', () => {
    const rate = new TurnError({ kind: 'rate_limit', message: 'm' });
    expect([rate.code, rate.retryable]).toEqual(['RATE_LIMIT', true]);
    const cut = new TurnError({ kind: 'stream_cut', message: 'm' });
    expect([cut.code, cut.retryable]).toEqual(['STREAM_CUT', false]);
    const transport = new TurnError({ kind: 'transport', message: 'm', retryable: false });
    expect(transport.retryable).toBe(false);
  });

  it('never makes an abort retryable', () => {
    const aborted = new TurnError({ kind: 'aborted', message: 'm', retryable: true });
    expect([aborted.kind, aborted.code, aborted.retryable]).toEqual(['aborted', 'ABORTED', false]);
  });

  it('keeps the raw error as cause and copies with changes', () => {
    const raw = new TypeError('terminated');
    const error = new TurnError({ kind: 'transport', message: 'socket closed', cause: raw, requestId: 'req_1' });
    expect(error.cause).toBe(raw);
    const copy = error.with({ retryAfterMs: 1000 });
    expect([copy.cause, copy.requestId, copy.retryAfterMs, copy.kind]).toEqual([raw, 'req_1', 1000, 'transport']);
  });
});
