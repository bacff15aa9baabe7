/**
 * Small helpers for reading untyped native JSON. The Responses wire carries
 * many fields we do not model; everything here exists so that unknown fields
 * are kept verbatim (R7.1 lossless gateway) instead of being dropped.
 */
export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The entries of `source` whose key is not in `knownKeys`, or `{}`. */
export function pickUnknownFields(source: JsonObject, knownKeys: ReadonlySet<string>): JsonObject {
  const unknown: JsonObject = {};
  for (const [key, value] of Object.entries(source)) {
    if (!knownKeys.has(key)) unknown[key] = value;
  }
  return unknown;
}

/** Returns `value` when it is a string, else `undefined`. */
export function readString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** Returns `value` when it is a finite number, else `undefined`. */
export function readNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
