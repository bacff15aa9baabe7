import { TurnError } from '@turnguard/core';

/** R11.1: the per-request fallback chain; consumed by the gateway, never forwarded upstream. */
export const FALLBACKS_HEADER = 'x-turnguard-fallbacks';

/** Request headers that are the gateway's own and must not reach an upstream (R11.1, R8.6). */
export const GATEWAY_OWN_REQUEST_HEADERS: ReadonlySet<string> = new Set([FALLBACKS_HEADER]);

export const MAX_HEADER_FALLBACKS = 8;
const MAX_MODEL_NAME_CHARS = 256;
const MAX_HEADER_CHARS = 4096;

function reject(message: string): never {
  throw new TurnError({
    kind: 'invalid_request',
    code: 'GATEWAY_INVALID_FALLBACKS_HEADER',
    status: 400,
    retryable: false,
    message: `${FALLBACKS_HEADER}: ${message}`,
    details: { header: FALLBACKS_HEADER },
  });
}

function checkName(name: unknown, index: number): string {
  if (typeof name !== 'string') reject(`entry ${index + 1} must be a model name (a string).`);
  const trimmed = name.trim();
  if (trimmed === '') reject(`entry ${index + 1} is empty.`);
  if (trimmed.length > MAX_MODEL_NAME_CHARS) reject(`entry ${index + 1} is longer than ${MAX_MODEL_NAME_CHARS} characters.`);
  // Control characters and commas have no place in a model name; `*` is a config key, not a model.
  if (/[\u0000-\u001f\u007f,]/.test(trimmed) || trimmed === '*') reject(`entry ${index + 1} is not a model name.`);
  return trimmed;
}

/**
 * The header's value → the ordered fallback model names (R11.1): a JSON
 * array of model names (`["gpt-4.1","claude-haiku-4-5"]`) or a
 * comma-separated list (`gpt-4.1, claude-haiku-4-5`). `[]` (or an empty
 * value) asks for no fallback at all. `undefined` when the header is absent:
 * the config's chain applies. Repeated headers arrive joined with `, ` and
 * read as one list. Bad values are a typed 400, never guessed at; the
 * message names the entry, never echoes it.
 */
export function parseFallbacksHeader(value: string | readonly string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const text = (typeof value === 'string' ? value : value.join(', ')).trim();
  if (text.length > MAX_HEADER_CHARS) reject(`the value is longer than ${MAX_HEADER_CHARS} characters.`);
  let names: string[];
  if (text.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      reject('the value starts with "[" but is not a JSON array; send ["model-a","model-b"] or model-a,model-b.');
    }
    if (!Array.isArray(parsed)) reject('the value must be a JSON array of model names.');
    names = parsed.map(checkName);
  } else {
    names = text === '' ? [] : text.split(',').map(checkName);
  }
  if (names.length > MAX_HEADER_FALLBACKS) reject(`at most ${MAX_HEADER_FALLBACKS} fallbacks, got ${names.length}.`);
  return names;
}
