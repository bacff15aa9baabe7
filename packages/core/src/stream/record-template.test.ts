import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RecordTemplate } from './record-template.js';

const readDeltaText = (parsed: unknown): unknown => (parsed as { delta?: { text?: unknown } }).delta?.text;
const learnText = (data: string) => RecordTemplate.learn(data, { valueKey: 'text', ignoredIntegerKeys: ['seq'], readValue: readDeltaText });

/** Literal text for the hole: valid JSON strings (escaped or not) and raw, often invalid, quoted text. */
const arbitraryLiteral = fc.oneof(
  fc.string({ unit: 'binary' }).map((text) => JSON.stringify(text)),
  fc.string({ unit: 'binary' }).map((text) => `"${[...text].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"`),
  fc.string({ unit: fc.constantFrom('a', ' ', '"', '\\', 'u', '0', 'n', '\n', '\u0001', '\u001f', 'é', '\ud83d', '\ude00', '/') }).map((raw) => `"${raw}"`),
);

describe('RecordTemplate (decision 0320: the JSON.parse fast path is exact)', () => {
  const learned = '{"type":"content_block_delta","seq":7,"index":1,"delta":{"type":"text_delta","text":"Hi"}}';

  it('matches a record of the learned shape and reads only its string literal', () => {
    const template = learnText(learned)!;
    expect(template).toBeDefined();
    expect(template.matchValue('{"type":"content_block_delta","seq":1234,"index":1,"delta":{"type":"text_delta","text":" there"}}')).toBe(' there');
    expect(template.matchValue('{"type":"content_block_delta","seq":8,"index":2,"delta":{"type":"text_delta","text":"x"}}')).toBeUndefined();
    expect(template.matchValue('{"type":"content_block_delta","seq":08,"index":1,"delta":{"type":"text_delta","text":"x"}}')).toBeUndefined();
    expect(template.matchValue('{"type":"content_block_delta","seq":8,"index":1,"delta":{"type":"text_delta","text":""}}')).toBeUndefined();
  });

  it('refuses a shape whose value leaf is not the one read (duplicate key, two candidates, non-string)', () => {
    expect(learnText('{"delta":{"type":"text_delta","text":"a","text":"b"}}')).toBeUndefined();
    expect(learnText('{"delta":{"text":5}}')).toBeUndefined();
    expect(learnText('{"other":{"text":"a"},"delta":{"text":"b"}}')).toBeUndefined();
    expect(learnText('{"delta":{"note":"\\"text\\":\\"x\\"","text":"b"}}')).toBeDefined();
  });

  it('property: a match always equals what JSON.parse of the whole record reads; a non-match is left to JSON.parse', () => {
    const template = learnText(learned)!;
    fc.assert(
      fc.property(arbitraryLiteral, fc.nat(), (literal, seq) => {
        const record = `{"type":"content_block_delta","seq":${seq},"index":1,"delta":{"type":"text_delta","text":${literal}}}`;
        const value = template.matchValue(record);
        let parsed: unknown;
        try {
          parsed = readDeltaText(JSON.parse(record));
        } catch {
          // JSON.parse rejects the record: the fast path must not accept it either.
          expect(value).toBeUndefined();
          return;
        }
        if (value !== undefined) expect(value).toBe(parsed);
        else expect(parsed === '' || literal !== JSON.stringify(parsed) || /[\\"\u0000-\u001f]/.test(literal.slice(1, -1))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('property: arbitrary text around the hole never makes a match differ from JSON.parse', () => {
    const template = learnText(learned)!;
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('"', '\\', ',', '}', 'x', ':', '1', ' ') }), fc.string({ unit: fc.constantFrom('"', '\\', ',', '}', 'x', ':', ' ') }), (before, after) => {
        const record = `{"type":"content_block_delta","seq":1,"index":1,"delta":{"type":"text_delta","text":"${before}"${after}}}`;
        const value = template.matchValue(record);
        if (value === undefined) return;
        expect(value).toBe(readDeltaText(JSON.parse(record)));
      }),
      { numRuns: 2000 },
    );
  });
});
