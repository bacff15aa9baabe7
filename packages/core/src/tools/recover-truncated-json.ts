/**
 * R3.14: repair tool-argument JSON that was cut off (typically when the
 * response stopped for the output-token limit mid tool call).
 *
 * Rules, chosen so that recovery only ever REMOVES or CLOSES, never invents:
 * - Input that already parses is returned unchanged (`recovered: false`).
 * - An unclosed string VALUE is closed where it was cut; an escape sequence
 *   cut mid-way (`\`, `\u12`) is dropped first.
 * - Every unclosed `{` is closed with `}`.
 * - In the innermost open object, a member that did not finish is dropped:
 *   a key cut mid-way, a key without `:`, a key with a dangling `:`, and a
 *   dangling `,`. A number at the very end is dropped too, because `12` may
 *   have been `1234` (a cut number is a different number, not a shorter
 *   one); a literal is kept only when complete (`true`, `false`, `null`).
 * - If any `[` is still open, nothing is recovered: array contents cannot be
 *   guessed (R3.14: an unclosed `[` is never recovered).
 * - A top-level string cut mid-way is closed like a value string; any other
 *   top-level fragment (a cut number or literal, empty text) is not recovered.
 *
 * Hence a recovered value relates to the document it was cut from like this
 * (tested as a property over every prefix): every array in it is complete
 * and equal to the original's, numbers/booleans/null are equal, strings are
 * prefixes of the original strings, and objects hold a subset of the
 * original keys with values related the same way.
 */
export type RecoverTruncatedJsonResult =
  | { ok: true; value: unknown; json: string; recovered: boolean }
  | { ok: false };

type ObjectState =
  | 'expect-key-or-end'
  | 'in-key'
  | 'expect-colon'
  | 'expect-value'
  | 'in-value-string'
  | 'in-value-partial'
  | 'after-value'
  | 'expect-key';

interface ObjectFrame {
  kind: 'object';
  state: ObjectState;
  /** Index just after the last complete member (or after `{`): a safe place to cut back to. */
  lastCompleteEnd: number;
}

interface ArrayFrame {
  kind: 'array';
}

type Frame = ObjectFrame | ArrayFrame;

interface PrefixScan {
  frames: Frame[];
  inString: boolean;
  /** Where an escape sequence cut off by the end of the text starts. */
  cutEscapeStart: number | undefined;
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const SCALAR_CHAR = /[0-9A-Za-z+\-.]/;
const COMPLETE_LITERAL = /^(?:true|false|null)$/;

export function recoverTruncatedJson(text: string): RecoverTruncatedJsonResult {
  const direct = parseJson(text);
  if (direct.ok) return { ok: true, value: direct.value, json: text, recovered: false };

  const scan = scanJsonPrefix(text);
  if (scan === undefined) return { ok: false };
  const closed = closeJsonPrefix(text, scan);
  if (closed === undefined) return { ok: false };
  const repaired = parseJson(closed);
  return repaired.ok ? { ok: true, value: repaired.value, json: closed, recovered: true } : { ok: false };
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/** Closes a scanned prefix, or `undefined` when it must not be recovered. */
function closeJsonPrefix(text: string, scan: PrefixScan): string | undefined {
  const { frames, inString, cutEscapeStart } = scan;
  if (frames.some((frame) => frame.kind === 'array')) return undefined;
  const closeString = (): string => `${text.slice(0, cutEscapeStart ?? text.length)}"`;

  const innermost = frames.at(-1);
  if (innermost === undefined) return inString ? closeString() : undefined;
  if (innermost.kind !== 'object') return undefined;

  let body: string;
  if (inString && innermost.state === 'in-value-string') body = closeString();
  else if (!inString && innermost.state === 'after-value') body = text;
  else body = text.slice(0, innermost.lastCompleteEnd);
  return body + '}'.repeat(frames.length);
}

/**
 * Walks the text once, tracking open containers and where the innermost
 * object was last complete. Returns `undefined` on a structural error that
 * truncation cannot explain (e.g. a `}` closing a `[`, text after the end).
 */
function scanJsonPrefix(text: string): PrefixScan | undefined {
  const frames: Frame[] = [];
  let inString = false;
  let topLevelDone = false;
  let index = 0;

  const startValue = (): boolean => {
    const top = frames.at(-1);
    if (top === undefined) return !topLevelDone;
    if (top.kind === 'array') return true;
    return top.state === 'expect-value';
  };
  const endValue = (end: number): void => {
    const top = frames.at(-1);
    if (top === undefined) topLevelDone = true;
    else if (top.kind === 'object') {
      top.state = 'after-value';
      top.lastCompleteEnd = end;
    }
  };

  while (index < text.length) {
    const char = text[index] as string;

    if (inString) {
      if (char === '\\') {
        const escapeLength = text[index + 1] === 'u' ? 6 : 2;
        if (index + escapeLength > text.length) return { frames, inString, cutEscapeStart: index };
        index += escapeLength;
        continue;
      }
      if (char === '"') {
        inString = false;
        const top = frames.at(-1);
        if (top?.kind === 'object' && top.state === 'in-key') top.state = 'expect-colon';
        else endValue(index + 1);
      }
      index += 1;
      continue;
    }

    if (WHITESPACE.has(char)) {
      index += 1;
      continue;
    }
    if (topLevelDone) return undefined;
    const top = frames.at(-1);

    switch (char) {
      case '{':
      case '[':
        if (!startValue()) return undefined;
        if (top?.kind === 'object') top.state = 'in-value-partial';
        frames.push(char === '{' ? { kind: 'object', state: 'expect-key-or-end', lastCompleteEnd: index + 1 } : { kind: 'array' });
        break;
      case '}':
        if (top?.kind !== 'object' || (top.state !== 'expect-key-or-end' && top.state !== 'after-value')) return undefined;
        frames.pop();
        endValue(index + 1);
        break;
      case ']':
        if (top?.kind !== 'array') return undefined;
        frames.pop();
        endValue(index + 1);
        break;
      case '"':
        if (top?.kind === 'object' && (top.state === 'expect-key-or-end' || top.state === 'expect-key')) {
          top.state = 'in-key';
        } else if (startValue()) {
          if (top?.kind === 'object') top.state = 'in-value-string';
        } else return undefined;
        inString = true;
        break;
      case ':':
        if (top?.kind !== 'object' || top.state !== 'expect-colon') return undefined;
        top.state = 'expect-value';
        break;
      case ',':
        if (top?.kind === 'object') {
          if (top.state !== 'after-value') return undefined;
          top.state = 'expect-key';
        } else if (top === undefined) return undefined;
        break;
      default: {
        if (!SCALAR_CHAR.test(char) || !startValue()) return undefined;
        let end = index;
        while (end < text.length && SCALAR_CHAR.test(text[end] as string)) end += 1;
        const scalar = text.slice(index, end);
        // A scalar running into the end of the text may be cut (`12` of `1234`,
        // `tru`); only a complete literal is certain.
        if (end < text.length || COMPLETE_LITERAL.test(scalar)) endValue(end);
        else if (top?.kind === 'object') top.state = 'in-value-partial';
        else if (top === undefined) return undefined;
        index = end;
        continue;
      }
    }
    index += 1;
  }
  return { frames, inString, cutEscapeStart: undefined };
}
