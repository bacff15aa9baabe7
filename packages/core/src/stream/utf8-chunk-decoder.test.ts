import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Utf8ChunkDecoder } from './utf8-chunk-decoder.js';

/** Splits `bytes` at the given cut points (any order, duplicates allowed). */
function split(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const parts: Uint8Array[] = [];
  let from = 0;
  for (const point of [...points, bytes.length]) {
    parts.push(bytes.slice(from, point));
    from = point;
  }
  return parts;
}

function decodeAll(parts: Uint8Array[]): string[] {
  const decoder = new Utf8ChunkDecoder();
  return [...parts.map((part) => decoder.decode(part)), decoder.end()];
}

function decodeStreaming(parts: Uint8Array[]): string {
  const decoder = new TextDecoder();
  return parts.map((part) => decoder.decode(part, { stream: true })).join('') + decoder.decode();
}

/** Bytes rich in UTF-8 edge cases: multi-byte sequences, BOMs, stray continuations, invalid leads, surrogate encodings. */
const edgeBytes = fc.array(
  fc.oneof(
    fc.uint8Array({ maxLength: 6 }),
    fc.string({ unit: 'grapheme' }).map((text) => new TextEncoder().encode(text)),
    fc.constantFrom(
      [0xef, 0xbb, 0xbf],
      [0xe2, 0x82, 0xac],
      [0xf0, 0x9f, 0x98, 0x80],
      [0xc3],
      [0xe2, 0x82],
      [0xf0, 0x9f, 0x98],
      [0x80],
      [0xbf, 0xbf],
      [0xc0, 0xaf],
      [0xed, 0xa0, 0x80],
      [0xe0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0xf8],
      [0x0a],
    ).map((values) => Uint8Array.from(values)),
  ),
  { maxLength: 24 },
).map((pieces) => Uint8Array.from(pieces.flatMap((piece) => [...piece])));

describe('Utf8ChunkDecoder (decision 0320: one-shot fast path, streaming result)', () => {
  it('gives the text a streaming TextDecoder gives, for any bytes split anywhere', () => {
    fc.assert(
      fc.property(edgeBytes, fc.array(fc.nat(), { maxLength: 8 }), (bytes, cuts) => {
        const parts = split(bytes, cuts);
        expect(decodeAll(parts).join('')).toBe(decodeStreaming(parts));
        expect(decodeAll(parts).join('')).toBe(new TextDecoder().decode(bytes));
      }),
      { numRuns: 2000 },
    );
  });

  it('holds a sequence cut at the end of a read and completes it with the next', () => {
    const euro = new TextEncoder().encode('a€');
    expect(decodeAll([euro.slice(0, 2), euro.slice(2)])).toEqual(['a', '€', '']);
    // Cut inside a 4-byte sequence, one byte per read.
    const smile = new TextEncoder().encode('😀');
    expect(decodeAll([...smile].map((byte) => Uint8Array.of(byte)))).toEqual(['', '', '', '😀', '']);
  });

  it('strips only the stream’s leading BOM, even when it arrives split', () => {
    const bom = Uint8Array.of(0xef, 0xbb, 0xbf);
    expect(decodeAll([bom.slice(0, 1), bom.slice(1), Uint8Array.of(0x41), bom]).join('')).toBe('A\ufeff');
  });

  it('ends an incomplete last sequence as one U+FFFD, as the streaming flush does', () => {
    expect(decodeAll([Uint8Array.of(0x41, 0xf0, 0x9f)])).toEqual(['A', '\ufffd']);
  });

  it('does not keep a reference to the caller’s buffer', () => {
    const chunk = Uint8Array.of(0x41, 0xe2, 0x82);
    const decoder = new Utf8ChunkDecoder();
    expect(decoder.decode(chunk)).toBe('A');
    chunk.fill(0x42);
    expect(decoder.decode(Uint8Array.of(0xac))).toBe('€');
  });
});
