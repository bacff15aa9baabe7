import fc from 'fast-check';
import { createParser } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import { findLastRecordEnd, SseRecordEndScanner } from './find-last-record-end.js';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const end = (text: string): number => findLastRecordEnd(bytes(text));

/** How many records eventsource-parser dispatches for `text` (blank `data` records included). */
function countRecords(text: string): number {
  let count = 0;
  const parser = createParser({ onEvent: () => (count += 1) });
  parser.feed(text);
  return count;
}

describe('findLastRecordEnd (raw relay: only whole SSE records are written, issue 7)', () => {
  it('finds the end after the last blank line for LF, CRLF, CR and mixed line ends', () => {
    expect(end('data: a\n\ndata: b')).toBe('data: a\n\n'.length);
    expect(end('data: a\n\ndata: b\n\n')).toBe('data: a\n\ndata: b\n\n'.length);
    expect(end('event: x\r\ndata: a\r\n\r\ndata: b\r\n')).toBe('event: x\r\ndata: a\r\n\r\n'.length);
    expect(end('data: a\r\rdata: b')).toBe('data: a\r\r'.length);
    expect(end('data: a\r\n\ndata: b')).toBe('data: a\r\n\n'.length);
  });

  it('has no complete record in a partial one, and does not take a trailing CR as a line end', () => {
    expect(end('')).toBe(0);
    expect(end('data: {"a":1}')).toBe(0);
    expect(end('data: {"a":1}\n')).toBe(0);
    expect(end('data: a\r\n\r')).toBe(0);
    expect(end('data: a\r')).toBe(0);
  });

  it('never splits a multi-byte character and ignores line ends escaped inside JSON strings', () => {
    const text = 'data: {"t":"é\\n\\nü"}\n\ndata: {"t":"日本';
    expect(end(text)).toBe(bytes('data: {"t":"é\\n\\nü"}\n\n').length);
  });

  it('agrees with eventsource-parser: the prefix holds every record the parser dispatches, the rest none', () => {
    const line = fc.constantFrom('data: x', 'data: {"a":"b"}', 'event: e', ': comment', 'id: 1', 'data:');
    const eol = fc.constantFrom('\n', '\r\n', '\r');
    const stream = fc.array(fc.tuple(line, eol, fc.boolean(), eol), { maxLength: 12 }).map((parts) =>
      parts.map(([text, lineEnd, blank, blankEnd]) => text + lineEnd + (blank ? blankEnd : '')).join(''),
    );
    fc.assert(
      fc.property(stream, fc.nat(), (text, cutSeed) => {
        const cut = text.slice(0, cutSeed % (text.length + 1));
        const offset = end(cut);
        const prefix = cut.slice(0, offset);
        // The parser dispatches a record ended by a lone CR only once it sees the next byte ('x' here), and a
        // trailing CR of the cut may still become CRLF, so it is left out of the reference count.
        expect(countRecords(`${prefix}x`)).toBe(countRecords(cut.endsWith('\r') ? cut.slice(0, -1) : cut));
      }),
      { numRuns: 500 },
    );
  });

  it('issue 16: fed in any split, records taken as they complete, the scanner finds exactly the ends of one pass', () => {
    const stream = fc.array(fc.stringMatching(/^(data: [a-zé]{0,3}|event: e|:c|)(\n|\r\n|\r)$/), { maxLength: 16 }).map((lines) => lines.join(''));
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 6 }), (text, cuts) => {
        const all = bytes(text);
        const points = [...new Set(cuts.map((cut) => cut % (all.length + 1)))].sort((a, b) => a - b);
        const scanner = new SseRecordEndScanner();
        let taken = 0;
        let from = 0;
        for (const point of [...points, all.length]) {
          scanner.feed(all.subarray(from, point));
          from = point;
          const end = scanner.lastRecordEnd;
          if (end === 0) continue;
          // The end found is the one a single pass over everything so far finds.
          expect(taken + end).toBe(findLastRecordEnd(all.subarray(0, point)));
          taken += end;
          scanner.consume(end);
        }
        expect(taken).toBe(findLastRecordEnd(all));
      }),
      { numRuns: 500 },
    );
  });
});
