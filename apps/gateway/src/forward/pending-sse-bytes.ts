import { SseRecordEndScanner } from './find-last-record-end.js';

const EMPTY: Uint8Array = new Uint8Array(0);

/**
 * A body's bytes read and not yet used (written, parsed), kept as the chunks they arrived
 * in (issue 16: joining them on every read was quadratic in the length of
 * one record). Only new bytes are searched for a record end, and each byte
 * is copied at most once, when it is taken; memory is the pending bytes.
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

  /** The first `count` bytes (count ≤ size), as one array: a view when the first chunk holds them all. */
  take(count: number): Uint8Array {
    const chunks = this.#chunks;
    const taken = chunks[0]!.length >= count ? undefined : new Uint8Array(count);
    let filled = 0;
    let used = 0;
    let rest = EMPTY;
    let view = EMPTY;
    while (filled < count) {
      const chunk = chunks[used]!;
      used += 1;
      const part = chunk.length > count - filled ? chunk.subarray(0, count - filled) : chunk;
      if (part !== chunk) rest = chunk.subarray(part.length);
      if (taken === undefined) view = part;
      else taken.set(part, filled);
      filled += part.length;
    }
    this.#dropFront(used, rest);
    this.#size -= count;
    this.#scanner.consume(count);
    return taken ?? view;
  }

  /** Drops the first `used` chunks, keeping `rest` (the unused tail of the last of them) in front. */
  #dropFront(used: number, rest: Uint8Array): void {
    this.#chunks = rest.length > 0 ? [rest, ...this.#chunks.slice(used)] : this.#chunks.slice(used);
  }
}
