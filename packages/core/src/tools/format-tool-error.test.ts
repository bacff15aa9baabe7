import { describe, expect, it } from 'vitest';
import { formatToolError } from './format-tool-error.js';

describe('formatToolError (R3.12)', () => {
  it('gives the model the error name and message', () => {
    expect(formatToolError(new Error('file not found'))).toBe('Error: file not found');
    expect(formatToolError(new TypeError('x is not a function'))).toBe('TypeError: x is not a function');
    expect(formatToolError('plain string')).toBe('Error: plain string');
    expect(formatToolError(7)).toBe('Error: 7');
  });

  it('describes throws without a message', () => {
    expect(formatToolError(new Error(''))).toBe('Error: the tool failed without a message');
    expect(formatToolError(undefined)).toBe('Error: the tool failed without a message');
    expect(formatToolError(null)).toBe('Error: the tool failed without a message');
  });

  it('keeps head and tail of a very long message', () => {
    const message = `HEAD${'x'.repeat(20_000)}TAIL`;
    const formatted = formatToolError(new Error(message));
    expect(formatted.length).toBeLessThan(10_100);
    expect(formatted.startsWith('Error: HEAD')).toBe(true);
    expect(formatted.endsWith('TAIL')).toBe(true);
    expect(formatted).toContain('characters omitted');
  });

  it('survives a throwing getter', () => {
    const hostile = Object.defineProperty({}, 'message', {
      get() {
        throw new Error('boom');
      },
    });
    expect(formatToolError(hostile)).toBe('Error: the tool failed without a message');
  });
});
