/** A JSON object as parsed from the wire, before anything is known about its fields. */
export type Json = Record<string, unknown>;

export const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * One SSE record's data as a JSON object, or undefined when it is not one:
 * the decoder reports a bad record itself, so a capture just keeps nothing of it.
 */
export function parseJsonRecord(data: string): Json | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return undefined;
  }
  return isRecord(parsed) ? parsed : undefined;
}
