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

// Values that are credentials whatever key holds them: bearer headers and the
// key shapes of OpenAI (`sk-…`, `sk-proj-…`) and Anthropic (`sk-ant-…`).
const CREDENTIAL_VALUE = /^\s*bearer\s+\S+|\bsk-[A-Za-z0-9_-]{16,}/i;

function isCredentialKey(key: string): boolean {
  const normalized = key.toLowerCase().replace(/[-_.\s]/g, '');
  return CREDENTIAL_KEYS.has(normalized) || CREDENTIAL_KEY_SUFFIXES.some((suffix) => normalized.endsWith(suffix));
}

/**
 * A JSON-safe deep copy with credentials removed (R1.10): credential-named
 * keys are dropped at any depth, credential-looking strings are replaced by
 * `[redacted]`. Cycles become `[circular]`; functions, symbols and undefined
 * are dropped; bigints become strings — so the result always serialises.
 */
export function redactCredentials(value: unknown): unknown {
  return redactValue(value, new WeakSet<object>());
}

function redactValue(value: unknown, ancestors: WeakSet<object>): unknown {
  if (typeof value === 'string') return CREDENTIAL_VALUE.test(value) ? REDACTED : value;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'boolean' || value === null) return value;
  if (typeof value !== 'object') return undefined;
  if (ancestors.has(value)) return '[circular]';
  ancestors.add(value);
  try {
    if (Array.isArray(value)) return value.map((item) => redactValue(item, ancestors) ?? null);
    if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
      return redactValue((value as { toJSON(): unknown }).toJSON(), ancestors);
    }
    if (isHeadersObject(value)) return redactValue(Object.fromEntries(value.entries()), ancestors);
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (isCredentialKey(key)) continue;
      const redacted = redactValue(item, ancestors);
      if (redacted !== undefined) copy[key] = redacted;
    }
    return copy;
  } finally {
    ancestors.delete(value);
  }
}

function isHeadersObject(value: object): value is { entries(): IterableIterator<[string, string]> } {
  return typeof Headers !== 'undefined' && value instanceof Headers;
}
