import { SseRecordEndScanner } from './find-last-record-end.js';

const EMPTY: Uint8Array = new Uint8Array(0);
const SEQUENCE_KEY = Buffer.from('"sequence_number":');
const USAGE_ONLY_MARK = Buffer.from('"choices":[]');
const USAGE_KEY = Buffer.from('"usage"');
// Buffer's byte search works on any Uint8Array: no Buffer view (or needle) per relayed chunk.
const indexOfBytes = Buffer.prototype.indexOf as (this: Uint8Array, needle: Uint8Array, byteOffset?: number) => number;
const lastIndexOfBytes = Buffer.prototype.lastIndexOf as (this: Uint8Array, needle: Uint8Array, byteOffset?: number) => number;

/**
 * A body's bytes read and not yet written, kept as the chunks they arrived
 * in (issue 16: joining them on every read was quadratic in the length of
 * one record). Only new bytes are searched for a record end, and taking
 * bytes copies none: the chunks (or views of them) go to the socket as they
 * are, so one long record costs its own bytes once, not twice.
 */
export class PendingSseBytes {
  #chunks: Uint8Array[] = [];
  #size = 0;
  readonly #scanner = new SseRecordEndScanner();

  get size(): number {
    return this.#size;
  }

  /** Just past the last whole SSE record pending (0 when none). */
  get lastRecordEnd(): number {
    return this.#scanner.lastRecordEnd;
  }

  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.#chunks.push(chunk);
    this.#size += chunk.length;
    this.#scanner.feed(chunk);
  }

  /** The first `count` bytes (count ≤ size), as the chunks (or views of them) that hold them, in order. */
  take(count: number): Uint8Array[] {
    const chunks = this.#chunks;
    const taken: Uint8Array[] = [];
    let filled = 0;
    let rest = EMPTY;
    while (filled < count) {
      const chunk = chunks[taken.length]!;
      const part = chunk.length > count - filled ? chunk.subarray(0, count - filled) : chunk;
      if (part !== chunk) rest = chunk.subarray(part.length);
      taken.push(part);
      filled += part.length;
    }
    this.#chunks = rest.length > 0 ? [rest, ...chunks.slice(taken.length)] : chunks.slice(taken.length);
    this.#size -= count;
    this.#scanner.consume(count);
    return taken;
  }
}

/** Whether `needle` is in `pieces`, also across the boundary of two pieces. */
function piecesContain(pieces: readonly Uint8Array[], needle: Uint8Array): boolean {
  for (let index = 0; index < pieces.length; index += 1) {
    const piece = pieces[index]!;
    if (indexOfBytes.call(piece, needle) !== -1) return true;
    const next = pieces[index + 1];
    if (next === undefined) break;
    const seam = Buffer.concat([piece.subarray(Math.max(0, piece.length - needle.length + 1)), next.subarray(0, needle.length - 1)]);
    if (indexOfBytes.call(seam, needle) !== -1) return true;
  }
  return false;
}

/** `pieces` cut into SSE records, each as views of the pieces it spans; bytes after the last record end are one more. */
function splitRecords(pieces: readonly Uint8Array[]): Uint8Array[][] {
  const ends: number[] = [];
  const scanner = new SseRecordEndScanner((end) => ends.push(end));
  for (const piece of pieces) scanner.feed(piece);
  const records: Uint8Array[][] = [];
  let current: Uint8Array[] = [];
  let offset = 0;
  let next = 0;
  for (const piece of pieces) {
    let from = 0;
    while (next < ends.length && ends[next]! <= offset + piece.length) {
      const cut = ends[next]! - offset;
      if (cut > from) current.push(piece.subarray(from, cut));
      records.push(current);
      current = [];
      from = cut;
      next += 1;
    }
    if (from < piece.length) current.push(piece.subarray(from));
    offset += piece.length;
  }
  if (current.length > 0) records.push(current);
  return records;
}

/**
 * Chat without `stream_options.include_usage` from the client: runTurn asked
 * upstream for usage (R5.2), so the usage-only chunk (`"choices":[]`, openai
 * wire-formats §1) is removed; a chunk with choices is kept whole. Works on
 * views of the bytes read: a long content record beside the usage chunk is
 * neither joined nor decoded (issue 16's memory bound).
 */
export function dropChatUsageRecords(pieces: Uint8Array[]): Uint8Array[] {
  if (!piecesContain(pieces, USAGE_ONLY_MARK)) return pieces;
  const kept: Uint8Array[] = [];
  for (const record of splitRecords(pieces)) {
    if (!(piecesContain(record, USAGE_ONLY_MARK) && piecesContain(record, USAGE_KEY))) kept.push(...record);
  }
  return kept;
}

/** The first `count` bytes of `pieces`, joined (a few bytes: what may follow a key across a seam). */
function headOf(pieces: readonly Uint8Array[], count: number): Uint8Array {
  const head: Uint8Array[] = [];
  let size = 0;
  for (const piece of pieces) {
    if (size >= count) break;
    head.push(piece.subarray(0, count - size));
    size += head.at(-1)!.length;
  }
  return Buffer.concat(head);
}

/**
 * The last Responses `sequence_number` in whole records already written, read
 * at a splice. Searched piece by piece from the end, each with the bytes that
 * may finish a key or number across its seams, so a long record is not joined.
 */
export function findLastSequenceNumber(pieces: readonly Uint8Array[]): number | undefined {
  for (let index = pieces.length - 1; index >= 0; index -= 1) {
    const before = index > 0 ? pieces[index - 1]!.subarray(-(SEQUENCE_KEY.length - 1)) : EMPTY;
    const window = Buffer.concat([before, pieces[index]!, headOf(pieces.slice(index + 1), SEQUENCE_KEY.length + 24)]);
    // Only keys that start in this piece (or across its front seam): one starting in the next piece was searched there.
    const at = lastIndexOfBytes.call(window, SEQUENCE_KEY, before.length + pieces[index]!.length - 1);
    if (at === -1) continue;
    const match = /^\s*(\d+)/.exec(window.toString('latin1', at + SEQUENCE_KEY.length, at + SEQUENCE_KEY.length + 24));
    return match === null ? undefined : Number(match[1]);
  }
  return undefined;
}
