import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { recoverTruncatedJson } from './recover-truncated-json.js';

function recoveredValue(text: string): unknown {
  const result = recoverTruncatedJson(text);
  if (!result.ok) throw new Error(`expected recovery of ${JSON.stringify(text)}`);
  expect(result.recovered).toBe(true);
  return result.value;
}

/**
 * The precise "never invents" relation (R3.14) between a recovered value and
 * the document it was cut from: arrays are complete and equal, scalars are
 * equal, strings are prefixes, objects hold a subset of the keys with values
 * related the same way.
 */
function isPrefixCompatible(recovered: unknown, original: unknown): boolean {
  if (Array.isArray(recovered)) return isDeepStrictEqual(recovered, original);
  if (typeof recovered === 'string') return typeof original === 'string' && original.startsWith(recovered);
  if (recovered !== null && typeof recovered === 'object') {
    if (original === null || typeof original !== 'object' || Array.isArray(original)) return false;
    const originalRecord = original as Record<string, unknown>;
    return Object.entries(recovered).every(
      ([key, value]) => Object.hasOwn(originalRecord, key) && isPrefixCompatible(value, originalRecord[key]),
    );
  }
  return recovered === original;
}

function prefixesOf(text: string): string[] {
  return Array.from({ length: text.length + 1 }, (_, length) => text.slice(0, length));
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Checks every prefix of a document against the R3.14 rules; returns how many recovered. */
function checkEveryPrefix(documentText: string): number {
  const original = JSON.parse(documentText) as unknown;
  let recoveredCount = 0;
  for (const prefix of prefixesOf(documentText)) {
    const result = recoverTruncatedJson(prefix);
    if (parses(prefix)) {
      expect(result).toEqual({ ok: true, value: JSON.parse(prefix), json: prefix, recovered: false });
      continue;
    }
    if (!result.ok) continue;
    recoveredCount += 1;
    expect(result.recovered).toBe(true);
    expect(JSON.parse(result.json)).toEqual(result.value);
    if (!isPrefixCompatible(result.value, original)) {
      throw new Error(`recovered ${result.json} is not prefix-compatible with ${documentText} (cut: ${prefix})`);
    }
  }
  return recoveredCount;
}

const REALISTIC_TOOL_ARGUMENTS: unknown[] = [
  { file_path: '/src/app.ts', content: 'export const greeting = "hello";\n\tconsole.log(`${greeting} \\ world`);\n' },
  { file_path: 'C:\\Users\\dev\\notes.md', old_string: 'a "quoted" line', new_string: 'ünïcödé 😀 line\r\n', replace_all: true },
  { command: 'grep -rn "TODO" src | head -20', timeout: 120000, description: 'find TODOs', run_in_background: false },
  { todos: [{ content: 'write tests', status: 'in_progress' }, { content: 'ship', status: 'pending' }], merge: null },
  { options: { depth: { max: 3, unit: 'levels' }, flags: {} }, pattern: '\\d+\\.\\d+', control: '\u0000\u001f' },
  'a top-level string with an escape \n and a quote "',
];

describe('recoverTruncatedJson (R3.14)', () => {
  it('returns input that already parses unchanged', () => {
    expect(recoverTruncatedJson('{"a":[1,2]}')).toEqual({ ok: true, value: { a: [1, 2] }, json: '{"a":[1,2]}', recovered: false });
    expect(recoverTruncatedJson(' 42 ')).toEqual({ ok: true, value: 42, json: ' 42 ', recovered: false });
  });

  it('closes an unclosed string value and its object', () => {
    expect(recoveredValue('{"file_path":"/a.ts","content":"line 1\\nline')).toEqual({
      file_path: '/a.ts',
      content: 'line 1\nline',
    });
  });

  it('closes nested objects', () => {
    expect(recoveredValue('{"a":{"b":{"c":"deep"')).toEqual({ a: { b: { c: 'deep' } } });
    expect(recoveredValue('{"a":{"b":1},"c":{')).toEqual({ a: { b: 1 }, c: {} });
  });

  it('drops a dangling comma, a key without a value and a trailing colon', () => {
    expect(recoveredValue('{"a":"x",')).toEqual({ a: 'x' });
    expect(recoveredValue('{"a":"x", "b"')).toEqual({ a: 'x' });
    expect(recoveredValue('{"a":"x","b":')).toEqual({ a: 'x' });
    expect(recoveredValue('{"a":"x","b": ')).toEqual({ a: 'x' });
    expect(recoveredValue('{"a":"x","bee')).toEqual({ a: 'x' });
    expect(recoveredValue('{')).toEqual({});
  });

  it('drops an escape sequence cut mid-way', () => {
    expect(recoveredValue('{"a":"tab\\')).toEqual({ a: 'tab' });
    expect(recoveredValue('{"a":"snow \\u26')).toEqual({ a: 'snow ' });
    expect(recoveredValue('{"a":"snow \\u2603')).toEqual({ a: 'snow \u2603' });
  });

  it('keeps a complete literal at the end but drops a number or a cut literal that may be incomplete', () => {
    expect(recoveredValue('{"a":"x","done":true')).toEqual({ a: 'x', done: true });
    expect(recoveredValue('{"a":"x","done":tr')).toEqual({ a: 'x' });
    expect(recoveredValue('{"a":"x","count":12')).toEqual({ a: 'x' });
    expect(recoveredValue('{"a":"x","count":12 ')).toEqual({ a: 'x', count: 12 });
  });

  it('does not recover when a [ is still open, anywhere in the stack', () => {
    expect(recoverTruncatedJson('{"todos":[{"content":"a')).toEqual({ ok: false });
    expect(recoverTruncatedJson('{"todos":["a","b"')).toEqual({ ok: false });
    expect(recoverTruncatedJson('["a"')).toEqual({ ok: false });
  });

  it('recovers after an array that was closed before the cut', () => {
    expect(recoveredValue('{"todos":["a","b"],"note":"cut')).toEqual({ todos: ['a', 'b'], note: 'cut' });
  });

  it('closes a cut top-level string, but not a cut top-level number or literal', () => {
    expect(recoveredValue('"half a sent')).toBe('half a sent');
    expect(recoverTruncatedJson('tru')).toEqual({ ok: false });
    expect(recoverTruncatedJson('-')).toEqual({ ok: false });
    expect(recoverTruncatedJson('')).toEqual({ ok: false });
  });

  it('does not recover text that is malformed rather than cut', () => {
    expect(recoverTruncatedJson('{"a" 1')).toEqual({ ok: false });
    expect(recoverTruncatedJson('{"a":1]')).toEqual({ ok: false });
    expect(recoverTruncatedJson('{"a":1}}')).toEqual({ ok: false });
    expect(recoverTruncatedJson('{"a":1,}')).toEqual({ ok: false });
    expect(recoverTruncatedJson('{"a":"line\nbreak')).toEqual({ ok: false });
    expect(recoverTruncatedJson('{a:1')).toEqual({ ok: false });
  });

  describe('properties over every prefix', () => {
    it('realistic tool arguments, compact and pretty-printed', () => {
      for (const argumentsValue of REALISTIC_TOOL_ARGUMENTS) {
        const compact = JSON.stringify(argumentsValue);
        const pretty = JSON.stringify(argumentsValue, null, 2);
        expect(checkEveryPrefix(compact)).toBeGreaterThan(0);
        expect(checkEveryPrefix(pretty)).toBeGreaterThan(0);
      }
    });

    it('generated JSON documents: recovered values parse, invent nothing, parseable prefixes are unchanged', () => {
      fc.assert(
        fc.property(fc.jsonValue({ maxDepth: 4, stringUnit: 'binary' }), fc.boolean(), (value, pretty) => {
          checkEveryPrefix(JSON.stringify(value, null, pretty ? 2 : undefined));
        }),
        { numRuns: 150 },
      );
    });

    it('objects without arrays: every non-empty prefix is recovered', () => {
      const scalar = fc.oneof(fc.string({ unit: 'binary', maxLength: 12 }), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null));
      const { node } = fc.letrec<{ node: Record<string, unknown> }>((tie) => ({
        node: fc.dictionary(fc.string({ maxLength: 6 }), fc.oneof({ depthSize: 'small' }, scalar, tie('node')), { maxKeys: 4 }),
      }));
      fc.assert(
        fc.property(node, (value) => {
          const text = JSON.stringify(value);
          for (const prefix of prefixesOf(text).slice(1)) expect(recoverTruncatedJson(prefix).ok).toBe(true);
        }),
        { numRuns: 150 },
      );
    });

    it('a cut inside an array is never recovered', () => {
      fc.assert(
        fc.property(fc.array(fc.jsonValue({ maxDepth: 2 }), { minLength: 0, maxLength: 4 }), (items) => {
          const head = '{"keep":"x","items":';
          const arrayText = JSON.stringify(items);
          const text = `${head}${arrayText}}`;
          // Prefixes that include the `[` but not its matching `]`.
          for (let length = head.length + 1; length < head.length + arrayText.length; length += 1) {
            expect(recoverTruncatedJson(text.slice(0, length))).toEqual({ ok: false });
          }
        }),
        { numRuns: 150 },
      );
    });
  });
});
