/**
 * Network reads → text, as a streaming `TextDecoder` (`{stream: true}`,
 * default BOM handling) would produce it — the same concatenated text for any
 * split of the same bytes — but through Node's one-shot UTF-8 fast path.
 *
 * Why (decision 0320): in Node 20 `TextDecoder#decode` with `{stream: true}`
 * turns its UTF-8 fast path off for good and goes through an ICU converter
 * (Node's `lib/internal/encoding.js`): 0.29 µs against 0.18 µs for a
 * 200-byte SSE record per read (`node bench/decode/stage-breakdown.mjs`).
 * Here each read is decoded one-shot, minus a trailing UTF-8
 * sequence it cuts off, which is held (1–3 bytes) and put in front of the next
 * read. Invalid bytes become U+FFFD exactly as the streaming decoder makes
 * them: a held prefix that turns out invalid is decoded together with what
 * follows it, by the same WHATWG rules.
 */
export class Utf8ChunkDecoder {
  /**
   * BOM handled here (once, at the start of the stream): the one-shot decoder would strip one per call.
   * One-shot decoding keeps no state, so every stream shares this one: no TextDecoder per response body.
   */
  static readonly #decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  #held: Uint8Array | undefined;
  #atStart = true;

  /** The text of `chunk`, without a UTF-8 sequence cut off at its end (held for the next call). */
  decode(chunk: Uint8Array): string {
    let bytes = chunk;
    const held = this.#held;
    if (held !== undefined) {
      this.#held = undefined;
      bytes = new Uint8Array(held.length + chunk.length);
      bytes.set(held);
      bytes.set(chunk, held.length);
    }
    const complete = completeLength(bytes);
    if (complete === bytes.length) return this.#text(Utf8ChunkDecoder.#decoder.decode(bytes));
    // A copy: the caller may reuse the chunk's buffer.
    this.#held = bytes.slice(complete);
    return complete === 0 ? '' : this.#text(Utf8ChunkDecoder.#decoder.decode(bytes.subarray(0, complete)));
  }

  /** What is still held at the end of the body (an incomplete sequence: U+FFFD, as the streaming decoder's flush). */
  end(): string {
    const held = this.#held;
    if (held === undefined) return '';
    this.#held = undefined;
    return this.#text(Utf8ChunkDecoder.#decoder.decode(held));
  }

  /** Strips the stream's leading BOM (only there), as `TextDecoder`'s default does. */
  #text(text: string): string {
    if (!this.#atStart || text === '') return text;
    this.#atStart = false;
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }
}

/**
 * The length of `bytes` without a trailing lead byte and its continuation
 * bytes when they are fewer than the lead announces (a sequence the next read
 * may complete). Anything else — ASCII last, a complete sequence, a stray
 * continuation byte, a byte no sequence starts with — decodes now.
 */
function completeLength(bytes: Uint8Array): number {
  const length = bytes.length;
  if (length === 0 || bytes[length - 1]! < 0x80) return length;
  // At most 3 continuation bytes (0b10xxxxxx) can follow a lead byte.
  let lead = length - 1;
  while (lead > length - 4 && lead > 0 && (bytes[lead]! & 0xc0) === 0x80) lead -= 1;
  const first = bytes[lead]!;
  const needed = first >= 0xc2 && first <= 0xdf ? 2 : first >= 0xe0 && first <= 0xef ? 3 : first >= 0xf0 && first <= 0xf4 ? 4 : 0;
  return needed > length - lead ? lead : length;
}
