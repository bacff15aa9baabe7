import { describe, expect, it } from 'vitest';
import { OUTPUT_TRUNCATED_HINT, parseToolInput } from './parse-tool-input.js';

describe('parseToolInput (R3.13, R3.14)', () => {
  it('parses valid arguments as they are', () => {
    expect(parseToolInput('{"path":"a.ts"}', { responseTruncated: false })).toEqual({
      ok: true,
      value: { path: 'a.ts' },
      recovered: false,
    });
  });

  it('reads empty arguments as {} (Anthropic no-argument tool), flagged when the response was truncated', () => {
    expect(parseToolInput('', { responseTruncated: false })).toEqual({ ok: true, value: {}, recovered: false });
    expect(parseToolInput('  ', { responseTruncated: true })).toEqual({ ok: true, value: {}, recovered: true });
  });

  it('R3.14: recovers arguments cut inside a string or object', () => {
    expect(parseToolInput('{"path":"a.ts","content":"hel', { responseTruncated: true })).toEqual({
      ok: true,
      value: { path: 'a.ts', content: 'hel' },
      recovered: true,
    });
  });

  it('R3.13: a truncated response gets the exact truncation hint', () => {
    const result = parseToolInput('{"items":["a","b', { responseTruncated: true });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.message).toContain('(output truncated, please reduce your output)');
      expect(result.message).toContain('not valid JSON');
    }
  });

  it('R3.13: a complete response gets a parse error without the hint', () => {
    const result = parseToolInput('{"a" 1}', { responseTruncated: false });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.message).toMatch(/^Error: Invalid tool arguments/);
      expect(result.message).not.toContain(OUTPUT_TRUNCATED_HINT);
    }
  });
});
