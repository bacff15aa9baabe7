export const REDACTED = '[redacted]';

// Keys compared lower-cased with '-', '_' and '.' removed, so `x-api-key`,
// `api_key`, `apiKey` and `X-Api-Key` are one entry.
const CREDENTIAL_KEYS: ReadonlySet<string> = new Set([
  'authorization',
  'proxyauthorization',
  'apikey',
  'xapikey',
  'xgoogapikey',
  'apitoken',
  'accesstoken',
  'refreshtoken',
  'idtoken',
  'sessiontoken',
  'authtoken',
  'bearer',
  'token',
  'cookie',
  'setcookie',
  'password',
  'secret',
  'clientsecret',
  'credential',
  'credentials',
  'privatekey',
]);
const CREDENTIAL_KEY_SUFFIXES = ['apikey', 'secret', 'password', 'authorization', 'credentials'];

// Values that are credentials whatever key holds them: a bearer token anywhere
// in the text ("… header was Bearer …") and the key shapes of OpenAI
// (`sk-…`, `sk-proj-…`), Anthropic (`sk-ant-…`), Groq (`gsk_…`) and Google
// (`AIza…`). Shapes it cannot know (32 hex, a proxy's own tokens) are caught
// by value: see `secrets`.
const CREDENTIAL_VALUE = /\bbearer\s+[A-Za-z0-9._~+/=-]{8,}|\bsk-[A-Za-z0-9_-]{16,}|\bgsk_[A-Za-z0-9]{20,}|\bAIza[0-9A-Za-z_-]{30,}/i;

/** Below this a value is too short to replace everywhere without destroying the dump (and too short to be a real key). */
const MIN_SECRET_LENGTH = 8;

function isCredentialKey(key: string): boolean {
  const normalized = key.toLowerCase().replace(/[-_.\s]/g, '');
  return CREDENTIAL_KEYS.has(normalized) || CREDENTIAL_KEY_SUFFIXES.some((suffix) => normalized.endsWith(suffix));
}

/**
 * A JSON-safe deep copy with credentials removed (R1.10): credential-named
 * keys are dropped at any depth, credential-looking strings are replaced by
 * `[redacted]`, and every occurrence of a given secret value (the request's
 * own key and credential headers, whatever their shape) is replaced in any
 * string. Cycles become `[circular]`; functions, symbols and undefined are
 * dropped; bigints become strings — so the result always serialises.
 */
export function redactCredentials(value: unknown, secrets: readonly string[] = []): unknown {
  const known = secrets.filter((secret) => secret.length >= MIN_SECRET_LENGTH);
  return redactValue(value, new WeakSet<object>(), known);
}

function redactString(text: string, secrets: readonly string[]): string {
  if (CREDENTIAL_VALUE.test(text)) return REDACTED;
  let redacted = text;
  for (const secret of secrets) {
    if (redacted.includes(secret)) redacted = redacted.split(secret).join(REDACTED);
  }
  return redacted;
}

function redactValue(value: unknown, ancestors: WeakSet<object>, secrets: readonly string[]): unknown {
  if (typeof value === 'string') return redactString(value, secrets);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'boolean' || value === null) return value;
  if (typeof value !== 'object') return undefined;
  if (ancestors.has(value)) return '[circular]';
  ancestors.add(value);
  try {
    if (Array.isArray(value)) return value.map((item) => redactValue(item, ancestors, secrets) ?? null);
    if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
      return redactValue((value as { toJSON(): unknown }).toJSON(), ancestors, secrets);
    }
    if (isHeadersObject(value)) return redactValue(Object.fromEntries(value.entries()), ancestors, secrets);
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (isCredentialKey(key)) continue;
      const redacted = redactValue(item, ancestors, secrets);
      if (redacted !== undefined) copy[key] = redacted;
    }
    return copy;
  } finally {
    ancestors.delete(value);
  }
}

/**
 * The credential values a request carries (its key, credential-named
 * headers, a bearer token's own value), for value-based redaction.
 */
export function collectCredentialValues(target: { apiKey?: string | undefined; headers?: Record<string, string> | undefined }): string[] {
  const values = target.apiKey === undefined ? [] : [target.apiKey];
  for (const [name, value] of Object.entries(target.headers ?? {})) {
    if (!isCredentialKey(name)) continue;
    values.push(value);
    const bearer = /^\s*bearer\s+(\S+)/i.exec(value)?.[1];
    if (bearer !== undefined) values.push(bearer);
  }
  return values;
}

const CREDENTIAL_VALUES = new RegExp(CREDENTIAL_VALUE.source, 'gi');

/**
 * A message with every credential-looking run and every given secret value
 * replaced by `[redacted]`, the rest kept (R4.10: an upstream that echoes
 * the caller's key in its error text must not put it into our TurnError).
 */
export function redactCredentialText(text: string, secrets: readonly string[]): string {
  let redacted = text.replace(CREDENTIAL_VALUES, REDACTED);
  for (const secret of secrets) {
    if (secret.length >= MIN_SECRET_LENGTH && redacted.includes(secret)) redacted = redacted.split(secret).join(REDACTED);
  }
  return redacted;
}

function isHeadersObject(value: object): value is { entries(): IterableIterator<[string, string]> } {
  return typeof Headers !== 'undefined' && value instanceof Headers;
}
