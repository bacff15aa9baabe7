/** Deep enough for any real tool schema (JSON Schema nests tens of levels), far from V8's stack limit. */
export const MAX_JSON_DEPTH = 512;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/** The index of the quote that closes the string opened before `from` (a quote after an odd run of backslashes is escaped). */
function findStringEnd(bytes: Buffer, from: number): number {
  let quote = bytes.indexOf(QUOTE, from);
  while (quote !== -1) {
    let backslashes = 0;
    while (bytes[quote - 1 - backslashes] === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
    quote = bytes.indexOf(QUOTE, quote + 1);
  }
  return bytes.length;
}

/**
 * True when `{`/`[` nest deeper than `limit` outside strings. Strings (most
 * of a large body) are skipped with the native `indexOf`; UTF-8 continuation
 * bytes are >= 0x80, never structural. A body shorter than the limit cannot
 * be that deep, so small requests skip the scan.
 */
export function exceedsJsonDepth(bytes: Buffer, limit: number): boolean {
  if (bytes.length <= limit) return false;
  let depth = 0;
  for (let index = 0; index < bytes.length; index += 1) {
    const byte = bytes[index]!;
    if (byte === QUOTE) index = findStringEnd(bytes, index + 1);
    else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      depth += 1;
      if (depth > limit) return true;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) depth -= 1;
  }
  return false;
}
