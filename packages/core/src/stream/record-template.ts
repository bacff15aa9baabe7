/**
 * The shape of a repetitive SSE record (a text or reasoning delta), learned
 * from one fully parsed record, so the next records of that shape need not be
 * `JSON.parse`d whole: only their one string literal is decoded (decision
 * 0320, `node bench/decode/run.mjs`).
 *
 * Why it is exact: a template is the learned record's text cut into constant
 * parts around JSON *tokens* (found by a lexer, never by searching text): one
 * string token (the value) and, before it, integer tokens of keys the decoder
 * never reads (e.g. Responses' `sequence_number`). A record matches when its
 * text is the constant parts in order with, in each hole, one complete token
 * of the same kind. JSON's grammar is context-free at token level, so such a
 * record parses to the learned tree with only those leaves changed. The
 * caller proves which leaf the value hole is (`readValue` must return a probe
 * value put there: a duplicate key or a second choice would fail that), so
 * the value read from the hole is what a full parse would have read. Any
 * doubt — an escape or control character that `JSON.parse` of the literal
 * alone rejects, an empty string, a different shape — returns `undefined`,
 * and the caller parses the record fully, errors included.
 */
export class RecordTemplate {
  /** Constant text between holes; an integer hole between each two, the value hole after the last. */
  readonly #prefixParts: readonly string[];
  readonly #suffix: string;

  private constructor(prefixParts: readonly string[], suffix: string) {
    this.#prefixParts = prefixParts;
    this.#suffix = suffix;
  }

  /**
   * The template of `data` (valid JSON text) whose value hole is the string
   * value of `valueKey`, or `undefined` when `data` has no single such value
   * or `readValue` does not read that leaf.
   */
  static learn(data: string, options: LearnRecordTemplateOptions): RecordTemplate | undefined {
    const tokens = findHoleTokens(data, JSON.stringify(options.valueKey), (options.ignoredIntegerKeys ?? []).map((key) => JSON.stringify(key)));
    if (tokens === undefined) return undefined;
    // Copies, not views: a decoder keeps its templates for the whole stream, and a view would keep the
    // network read the record came from (a first read holding a whole thinking phase: 39 KiB per stream).
    const prefixParts: string[] = [];
    let from = 0;
    for (const integer of tokens.integers) {
      prefixParts.push(detachSlice(data.slice(from, integer.start)));
      from = integer.end;
    }
    prefixParts.push(detachSlice(data.slice(from, tokens.value.start)));
    const template = new RecordTemplate(prefixParts, detachSlice(data.slice(tokens.value.end)));
    // The probe: the leaf the decoder reads must be this hole, whatever else the record holds.
    let probed: unknown;
    try {
      probed = options.readValue(JSON.parse(template.render(PROBE_LITERAL)));
    } catch {
      return undefined;
    }
    return probed === PROBE_VALUE ? template : undefined;
  }

  /**
   * The value in the hole when `data` has this shape and the value is a
   * non-empty string; `undefined` means "parse it fully". Never throws.
   */
  matchValue(data: string): string | undefined {
    const parts = this.#prefixParts;
    const last = parts.length - 1;
    let position = 0;
    for (let index = 0; index <= last; index += 1) {
      const part = parts[index]!;
      // `slice` + `===` compares flat memory; `startsWith` went char by char here (bench/decode).
      if (data.slice(position, position + part.length) !== part) return undefined;
      position += part.length;
      if (index < last) {
        position = skipIntegerToken(data, position);
        if (position < 0) return undefined;
      }
    }
    const end = data.length - this.#suffix.length;
    if (end - position < 3 || data.slice(end) !== this.#suffix) return undefined;
    return readStringToken(data, position, end);
  }

  /** The learned record with `literal` (a JSON string token) in the value hole, integers as 0. */
  render(literal: string): string {
    return `${this.#prefixParts.join('0')}${literal}${this.#suffix}`;
  }
}

export interface LearnRecordTemplateOptions {
  /** The key whose string value is the hole. */
  valueKey: string;
  /** Keys whose integer values the decoder never reads: holes too, so e.g. a sequence number may vary. */
  ignoredIntegerKeys?: readonly string[];
  /** Reads the value the decoder would read from a parsed record (it must find the hole). */
  readValue: (parsed: unknown) => unknown;
}

const PROBE_VALUE = '\u2063turnguard-probe\u2063';
const PROBE_LITERAL = JSON.stringify(PROBE_VALUE);

interface TokenSpan {
  start: number;
  end: number;
}

/**
 * Lexes JSON text (already known valid) for the one string value of
 * `valueKey` and the integer values of `integerKeys` before it (keys compared
 * as raw tokens). `undefined` if the value key's string value is not exactly
 * one.
 */
function findHoleTokens(data: string, valueKey: string, integerKeys: readonly string[]): { value: TokenSpan; integers: TokenSpan[] } | undefined {
  let value: TokenSpan | undefined;
  const integers: TokenSpan[] = [];
  let key: string | undefined;
  let index = 0;
  while (index < data.length) {
    const code = data.charCodeAt(index);
    if (code === 34) {
      const end = skipStringToken(data, index);
      if (end < 0) return undefined;
      const colon = skipWhitespace(data, end);
      if (data.charCodeAt(colon) === 58) {
        key = data.slice(index, end);
        index = colon + 1;
        continue;
      }
      if (key === valueKey) {
        if (value !== undefined) return undefined;
        value = { start: index, end };
      }
      key = undefined;
      index = end;
      continue;
    }
    if (code === 45 || (code >= 48 && code <= 57)) {
      let end = index + 1;
      while (end < data.length && isNumberChar(data.charCodeAt(end))) end += 1;
      if (value === undefined && key !== undefined && integerKeys.includes(key) && isIntegerToken(data, index, end)) integers.push({ start: index, end });
      key = undefined;
      index = end;
      continue;
    }
    // Punctuation, whitespace, true/false/null: none is a hole; a value other than a string or number clears the key.
    if (code !== 32 && code !== 9 && code !== 10 && code !== 13) key = undefined;
    index += 1;
  }
  return value === undefined ? undefined : { value, integers };
}

/** The index after the string token starting at `start` (a quote), or -1. */
function skipStringToken(data: string, start: number): number {
  let index = start + 1;
  while (index < data.length) {
    const code = data.charCodeAt(index);
    if (code === 92) index += 2;
    else if (code === 34) return index + 1;
    else index += 1;
  }
  return -1;
}

function skipWhitespace(data: string, start: number): number {
  let index = start;
  for (;;) {
    const code = data.charCodeAt(index);
    if (code !== 32 && code !== 9 && code !== 10 && code !== 13) return index;
    index += 1;
  }
}

function isNumberChar(code: number): boolean {
  return (code >= 48 && code <= 57) || code === 45 || code === 43 || code === 46 || code === 101 || code === 69;
}

/** `0` or `[1-9][0-9]*`: the only integer tokens a hole accepts. */
function isIntegerToken(data: string, start: number, end: number): boolean {
  return skipIntegerToken(data, start) === end;
}

/** The index after an integer token (`0` or `[1-9][0-9]*`) at `start`, or -1. */
function skipIntegerToken(data: string, start: number): number {
  const first = data.charCodeAt(start);
  if (first === 48) return start + 1;
  if (!(first >= 49 && first <= 57)) return -1;
  let index = start + 1;
  for (;;) {
    const code = data.charCodeAt(index);
    if (!(code >= 48 && code <= 57)) return index;
    index += 1;
  }
}

/**
 * The string value of the token spanning exactly `data[start, end)`, or
 * `undefined` when it is not one complete non-empty string token or
 * `JSON.parse` rejects it (the caller's full parse then reports it).
 */
function readStringToken(data: string, start: number, end: number): string | undefined {
  if (data.charCodeAt(start) !== 34 || data.charCodeAt(end - 1) !== 34) return undefined;
  const last = end - 1;
  let index = start + 1;
  for (; index < last; index += 1) {
    const code = data.charCodeAt(index);
    if (code === 34 || code === 92 || code < 32) break;
  }
  // No quote, backslash or control character: the characters are the value (JSON.parse copies them as they are).
  if (index === last) return detachSlice(data.slice(start + 1, last));
  // Escapes: the closing quote must be the token's own, then JSON.parse decodes (or rejects) the literal.
  index = start + 1;
  while (index < last) {
    const code = data.charCodeAt(index);
    if (code === 92) index += 2;
    else if (code === 34) return undefined;
    else index += 1;
  }
  if (index !== last) return undefined;
  try {
    const value: unknown = JSON.parse(data.slice(start, end));
    return typeof value === 'string' && value !== '' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Node's engine keeps a substring of this many characters or more as a view into its parent string. */
const MIN_SLICED_STRING_LENGTH = 13;

/**
 * `text` as a string of its own. A slice of 13+ characters is a view into the
 * string it came from — here the text of a whole network read — so a
 * template's parts, or an event value a consumer keeps (runTurn's reasoning
 * for a checkpoint, a host's transcript), would keep every read alive:
 * decoding a 200 000-record Chat stream and keeping the deltas held 62 MiB
 * instead of 11 (decision 0320; record-template-retention.test.ts checks the
 * read is let go). JSON.parse, on the full path, copies. Concatenating then
 * slicing copies the characters into a new string the result refers to instead.
 */
function detachSlice(text: string): string {
  return text.length < MIN_SLICED_STRING_LENGTH ? text : (' ' + text).slice(1);
}
