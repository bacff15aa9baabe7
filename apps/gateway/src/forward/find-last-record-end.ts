const LF = 0x0a;
const CR = 0x0d;

/**
 * Finds where complete SSE records end in a byte stream fed chunk by chunk,
 * looking at each byte once (the raw relay's cost is linear in the bytes
 * relayed, issue 16; a backward scan of everything pending on every read
 * was quadratic in the length of one record). A record ends with an empty
 * line; lines end with CRLF, LF or CR (WHATWG "server-sent events",
 * §9.2.5), so a record ends at `\n\n`, `\r\n\r\n`, `\r\r` or any mix such as
 * `\r\n\n`. A CR as the last byte seen is not yet a line end: its LF may be
 * in the next network read. Works on bytes, no UTF-8 decoding: LF and CR
 * never occur inside a multi-byte UTF-8 sequence.
 */
export class SseRecordEndScanner {
  /** Bytes fed since the last `consume`. */
  #offset = 0;
  /** Just past the last complete record, counted like `#offset` (0: none). */
  #lastEnd = 0;
  /** The current line has bytes other than its terminator. */
  #lineHasText = false;
  /** A line terminator was seen: the current line starts after one (an empty first line ends nothing). */
  #afterTerminator = false;
  /** The previous byte was a CR whose terminator may still take an LF. */
  #pendingCr = false;
  readonly #onRecordEnd: ((end: number) => void) | undefined;

  /** `onRecordEnd` hears every record end (offsets as `lastRecordEnd` counts them), not only the last. */
  constructor(onRecordEnd?: (end: number) => void) {
    this.#onRecordEnd = onRecordEnd;
  }

  /** Offset just past the last complete record, from the last `consume` (0 when none). */
  get lastRecordEnd(): number {
    return this.#lastEnd;
  }

  /** Scans the next bytes of the stream. */
  feed(bytes: Uint8Array): void {
    const base = this.#offset;
    for (let index = 0; index < bytes.length; index += 1) {
      const byte = bytes[index];
      if (this.#pendingCr) {
        this.#pendingCr = false;
        if (byte === LF) {
          this.#endLine(base + index + 1);
          continue;
        }
        this.#endLine(base + index);
      }
      if (byte === CR) this.#pendingCr = true;
      else if (byte === LF) this.#endLine(base + index + 1);
      else this.#lineHasText = true;
    }
    this.#offset = base + bytes.length;
  }

  /** The caller took the first `count` bytes (up to a record end): offsets now count from there. */
  consume(count: number): void {
    this.#offset -= count;
    this.#lastEnd = Math.max(0, this.#lastEnd - count);
  }

  /** A line terminator ending at `end`: an empty line after another line ends a record. */
  #endLine(end: number): void {
    if (!this.#lineHasText && this.#afterTerminator) {
      this.#lastEnd = end;
      this.#onRecordEnd?.(end);
    }
    this.#lineHasText = false;
    this.#afterTerminator = true;
  }
}

/** The offset just past the last complete SSE record in `bytes` (0 when none is complete): see SseRecordEndScanner. */
export function findLastRecordEnd(bytes: Uint8Array): number {
  const scanner = new SseRecordEndScanner();
  scanner.feed(bytes);
  return scanner.lastRecordEnd;
}
