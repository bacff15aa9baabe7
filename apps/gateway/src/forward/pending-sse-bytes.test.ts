import { describe, expect, it } from 'vitest';
import { dropChatUsageRecords, findLastSequenceNumber, PendingSseBytes } from './pending-sse-bytes.js';

// Issue 16: the raw relay's pending bytes are views of the chunks read; every helper works on pieces
// and must give what it gives on the joined bytes, wherever the pieces are cut.
const encode = (text: string): Uint8Array => new TextEncoder().encode(text);
const decode = (pieces: readonly Uint8Array[]): string => Buffer.concat(pieces).toString('utf8');

/** `text` cut at every `cuts` offset. */
function cutAt(text: string, cuts: number[]): Uint8Array[] {
  const bytes = encode(text);
  const bounds = [0, ...cuts, bytes.length];
  return bounds.slice(1).map((end, index) => bytes.slice(bounds[index], end));
}

const allCuts = (text: string): number[][] => Array.from({ length: encode(text).length - 1 }, (_, at) => [at + 1]);

describe('PendingSseBytes', () => {
  it('takes up to a record end as views of the chunks pushed, keeping the rest', () => {
    const pending = new PendingSseBytes();
    const first = encode('data: {"a":1}\n\ndata: {"b"');
    pending.push(first);
    pending.push(encode(':2}\n\nda'));
    expect(pending.lastRecordEnd).toBe(Buffer.byteLength('data: {"a":1}\n\ndata: {"b":2}\n\n'));
    const taken = pending.take(pending.lastRecordEnd);
    expect(decode(taken)).toBe('data: {"a":1}\n\ndata: {"b":2}\n\n');
    expect(taken[0]!.buffer).toBe(first.buffer);
    expect(pending.size).toBe(2);
    expect(pending.lastRecordEnd).toBe(0);
  });
});

describe('dropChatUsageRecords on pieces', () => {
  const stream = 'data: {"choices":[{"delta":{"content":"hi"}}]}\n\ndata: {"choices":[],"usage":{"total_tokens":3}}\r\n\r\ndata: [DONE]\n\n';
  const expected = 'data: {"choices":[{"delta":{"content":"hi"}}]}\n\ndata: [DONE]\n\n';

  it('drops the usage-only chunk wherever the bytes are cut, and keeps the others whole', () => {
    for (const cuts of allCuts(stream)) expect(decode(dropChatUsageRecords(cutAt(stream, cuts))), String(cuts)).toBe(expected);
    expect(decode(dropChatUsageRecords(cutAt(stream, [10, 60, 70, 80])))).toBe(expected);
  });

  it('returns the same pieces, untouched, when there is no usage-only chunk', () => {
    const pieces = cutAt(expected, [7, 30]);
    expect(dropChatUsageRecords(pieces)).toBe(pieces);
  });

  it('keeps a chunk that has choices and usage (a final content chunk that carries usage)', () => {
    const withChoices = 'data: {"choices":[{"delta":{}}],"usage":{"total_tokens":3}}\n\n';
    expect(decode(dropChatUsageRecords(cutAt(withChoices, [20])))).toBe(withChoices);
  });
});

describe('findLastSequenceNumber on pieces', () => {
  const records = 'data: {"type":"a","sequence_number":7}\n\ndata: {"type":"b","sequence_number":128}\n\n';

  it('finds the last number wherever the bytes are cut, also across a seam inside the key or the number', () => {
    for (const cuts of allCuts(records)) expect(findLastSequenceNumber(cutAt(records, cuts)), String(cuts)).toBe(128);
    expect(findLastSequenceNumber(cutAt(records, [5, 45, 70, 74]))).toBe(128);
  });

  it('is undefined when no record has one', () => {
    expect(findLastSequenceNumber(cutAt('data: {"a":1}\n\n', [4]))).toBeUndefined();
  });
});
