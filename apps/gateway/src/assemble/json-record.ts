/** A JSON object as parsed from the wire, before anything is known about its fields. */
export type Json = Record<string, unknown>;

export const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
