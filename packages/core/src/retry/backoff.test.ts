import { describe, expect, it } from 'vitest';
import { ExponentialBackoff } from './backoff.js';

function takeDelays(backoff: ExponentialBackoff, count: number): number[] {
  const delays: number[] = [];
  let current = backoff;
  for (let index = 0; index < count; index += 1) {
    current = current.next();
    delays.push(current.delayMs);
  }
  return delays;
}

describe('ExponentialBackoff (R1.4)', () => {
  it('R1.4 defaults: min(32 s, 500 ms × 2^(n-1)) with no jitter when random() is 0', () => {
    expect(takeDelays(ExponentialBackoff.create({ random: () => 0 }), 10)).toEqual([
      500, 1000, 2000, 4000, 8000, 16000, 32000, 32000, 32000, 32000,
    ]);
  });

  it('R1.4 adds up to 25 % jitter on top of the capped delay', () => {
    expect(takeDelays(ExponentialBackoff.create({ random: () => 0.5 }), 8)).toEqual([
      563, 1125, 2250, 4500, 9000, 18000, 36000, 36000,
    ]);
    // random() is clamped, so a bad source cannot exceed the 25 % bound.
    expect(takeDelays(ExponentialBackoff.create({ random: () => 7 }), 1)).toEqual([625]);
  });

  it('is an immutable value: next() never changes the value it is called on', () => {
    const first = ExponentialBackoff.create({ random: () => 0 }).next();
    const second = first.next();
    expect([first.attempt, first.delayMs, second.attempt, second.delayMs]).toEqual([1, 500, 2, 1000]);
    expect(first.next().delayMs).toBe(1000);
  });

  it('takes every number as an option', () => {
    const backoff = ExponentialBackoff.create({ initialDelayMs: 100, factor: 3, maxDelayMs: 1000, jitterRatio: 0.1, random: () => 1 });
    expect(takeDelays(backoff, 4)).toEqual([110, 330, 990, 1100]);
  });
});
