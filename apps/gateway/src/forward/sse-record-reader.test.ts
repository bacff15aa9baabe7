import { describe, expect, it } from 'vitest';
import { SseRecordReader } from './sse-record-reader.js';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

function readAll(wire: string, size: number, flush: boolean): Array<[string | undefined, string]> {
  const records: Array<[string | undefined, string]> = [];
  const reader = new SseRecordReader((event, data) => records.push([event, data]));
  const encoded = bytes(wire);
  for (let at = 0; at < encoded.length; at += size) reader.push(encoded.subarray(at, at + size));
  if (flush) reader.flush();
  return records;
}

describe('SseRecordReader (the records a JSON answer is built from, R8.6)', () => {
  it('reads whole records whatever the chunking and line endings: event names, multi-line data, comments, UTF-8 across reads', () => {
    const wire = ': keep-alive\n\nevent: a\r\ndata: {"t":"é"}\r\n\r\ndata:x\rdata: y\r\rdata: 🙂\n\r\nevent: lonely\n\ndata: last';
    const expected: Array<[string | undefined, string]> = [
      ['a', '{"t":"é"}'],
      [undefined, 'x\ny'],
      [undefined, '🙂'],
    ];
    for (const size of [1, 2, 3, 5, 64]) {
      expect(readAll(wire, size, false), `chunks of ${size}`).toEqual(expected);
      // A last record with no blank line after it counts only when the body's end is flushed.
      expect(readAll(wire, size, true), `chunks of ${size}, flushed`).toEqual([...expected, [undefined, 'last']]);
    }
  });
});
