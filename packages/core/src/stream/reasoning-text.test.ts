import { describe, expect, it } from 'vitest';
import { ReasoningText } from './reasoning-text.js';

// R4.3: a segment's reasoning is kept for the recovery checkpoint, whole and
// in order; what it costs in memory is measured in bench/decode/reasoning-memory.mjs.

const word = (index: number): string => `w${(index * 7919).toString(36)}       `.slice(0, 8);

function feed(reasoning: ReasoningText, deltas: number): void {
  for (let index = 0; index < deltas; index += 1) reasoning.add(word(index));
}

describe('ReasoningText (R4.3)', () => {
  it('gives back every delta in order, across joins and after a partial one', () => {
    for (const count of [0, 1, 63, 64, 65, 200]) {
      const reasoning = new ReasoningText(true, 1_000_000);
      feed(reasoning, count);
      expect(reasoning.text()).toBe(Array.from({ length: count }, (_, index) => word(index)).join(''));
      // text() joins; adding after it still appends.
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
});
