const LF = 0x0a;
const CR = 0x0d;

/**
 * The offset just past the last complete SSE record in `bytes` (0 when none
 * is complete). A record ends with an empty line; lines end with CRLF, LF or
 * CR (WHATWG "server-sent events", §9.2.5), so a record ends at `\n\n`,
 * `\r\n\r\n`, `\r\r` or any mix such as `\r\n\n`. A CR as the very last byte
 * is not taken as a line end: its LF may be in the next network read. Works
 * on bytes, no UTF-8 decoding: LF and CR never occur inside a multi-byte
 * UTF-8 sequence.
 */
export function findLastRecordEnd(bytes: Uint8Array): number {
  for (let index = bytes.length - 1; index >= 1; index -= 1) {
    const byte = bytes[index];
    if (byte === LF) {
      // This LF ends a line; the terminator starts at the CR before it, if any.
      const start = bytes[index - 1] === CR ? index - 1 : index;
      if (start >= 1 && endsLine(bytes, start - 1)) return index + 1;
    } else if (byte === CR && index < bytes.length - 1 && bytes[index + 1] !== LF) {
      // A lone CR line end (the byte after it is known and is not LF).
      if (endsLine(bytes, index - 1)) return index + 1;
    }
  }
  return 0;
}

/** Whether the byte at `index` is the last byte of a line terminator (so the line after it starts at index + 1). */
function endsLine(bytes: Uint8Array, index: number): boolean {
  const byte = bytes[index];
  return byte === LF || byte === CR;
}
