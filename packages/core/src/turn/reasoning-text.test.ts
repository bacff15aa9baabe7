import { describe, expect, it } from 'vitest';
import { collectGarbage, optimizeOnNextCall } from '../internal/v8-probes.test-helper.js';
import { ReasoningText } from './reasoning-text.js';

// R4.3: a segment's reasoning is kept for the recovery checkpoint; issue 19: cheaply, and in
// about one byte per character however it arrived.

const word = (index: number): string => `w${(index * 7919).toString(36)}       `.slice(0, 8);

function feed(reasoning: ReasoningText, deltas: number): void {
  for (let index = 0; index < deltas; index += 1) reasoning.add(word(index));
}

describe('ReasoningText (R4.3, issue 19)', () => {
  it('gives back every delta in order, across folds and after a partial one', () => {
    for (const count of [0, 1, 63, 64, 65, 200]) {
      const reasoning = new ReasoningText(true, 1_000_000);
      feed(reasoning, count);
      expect(reasoning.text()).toBe(Array.from({ length: count }, (_, index) => word(index)).join(''));
      // text() folds; adding after it still appends.
      reasoning.add('tail');
      expect(reasoning.text().endsWith('tail')).toBe(true);
    }
  });

  it('keeps nothing when not kept, nothing after drop, and stops once longer than the limit and not blank', () => {
    const off = new ReasoningText(false, 1_000);
    feed(off, 100);
    expect(off.text()).toBe('');

    const dropped = new ReasoningText(true, 1_000_000);
    feed(dropped, 100);
    dropped.drop();
    dropped.add('after');
    expect(dropped.text()).toBe('');

    const capped = new ReasoningText(true, 20);
    feed(capped, 10);
    // 8 characters per delta: the third delta passes 20, nothing after it is kept.
    expect(capped.text()).toBe(word(0) + word(1) + word(2));

    const blank = new ReasoningText(true, 20);
    for (let index = 0; index < 10; index += 1) blank.add('        ');
    blank.add('x');
    expect(blank.text()).toBe(`${'        '.repeat(10)}x`);
  });

  it('holds about one byte per kept character, also in optimised code (the rope is flattened as it goes)', () => {
    const DELTAS = 6_400;
    const KEPT = 100;
    // Warm up, then have TurboFan compile the per-delta path: the flattening read must survive it.
    for (let round = 0; round < 20; round += 1) feed(new ReasoningText(true, 1_000_000), 640);
    optimizeOnNextCall(ReasoningText.prototype.add);
    optimizeOnNextCall(feed);
    feed(new ReasoningText(true, 1_000_000), 640);

    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    const kept: ReasoningText[] = [];
    for (let index = 0; index < KEPT; index += 1) {
      const reasoning = new ReasoningText(true, 1_000_000);
      feed(reasoning, DELTAS);
      kept.push(reasoning);
    }
    collectGarbage();
    const perChar = (process.memoryUsage().heapUsed - before) / (KEPT * DELTAS * 8);
    expect(kept).toHaveLength(KEPT);
    // Node 20: ≈ 1.07 bytes per character; a rope of its deltas ≈ 6.9.
    expect(perChar).toBeLessThan(2);
  });
});
