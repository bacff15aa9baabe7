import { describe, expect, it } from 'vitest';
import { exceedsJsonDepth } from './json-depth.js';

const deep = (levels: number): Buffer => Buffer.from(`${'['.repeat(levels)}${']'.repeat(levels)}`);

describe('R8.9 JSON nesting limit', () => {
  it('counts nesting of objects and arrays against the limit', () => {
    expect(exceedsJsonDepth(deep(10), 10)).toBe(false);
    expect(exceedsJsonDepth(deep(11), 10)).toBe(true);
    expect(exceedsJsonDepth(Buffer.from(`{"a":${'{"b":'.repeat(11)}1${'}'.repeat(12)}`), 10)).toBe(true);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ text: `${'['.repeat(50)} \\" "${'{'.repeat(50)}`, more: '\\' });
    expect(exceedsJsonDepth(Buffer.from(text), 10)).toBe(false);
    // An escaped quote does not end the string: the brackets after it are still text.
    expect(exceedsJsonDepth(Buffer.from(`{"a":"\\"${'['.repeat(40)}"}`), 10)).toBe(false);
    // An escaped backslash before the quote does end it: what follows is structure.
    expect(exceedsJsonDepth(Buffer.from(`{"a":"\\\\",${'"b":['.repeat(1)}${'['.repeat(40)}${']'.repeat(41)}}`), 10)).toBe(true);
  });
});
