import type { ProviderFields } from '@turnguard/core';

/**
 * Key under which this adapter keeps its own hints about the exact native
 * shape inside a `providerFields` record. Every OTHER key of `providerFields`
 * is a native field kept verbatim at that level (R7.1 lossless gateway); this
 * key holds what the neutral types cannot express (a string vs. an array
 * `content`, `developer` vs `system`, `max_tokens` vs `max_completion_tokens`…)
 * so that `buildRequest(parseRequest(x))` deep-equals `x`. The `:` makes it a
 * name no real wire field uses. See docs/decisions/0030.
 */
export const CHAT_WIRE_HINTS_KEY = 'turnguard:chat';

/** How a native `content` field was written. */
export type ChatContentForm = 'string' | 'array' | 'null' | 'absent';

/** A native content part the neutral types cannot hold (audio, file, refusal…), with its position. */
export interface OpaqueContentPart {
  index: number;
  part: unknown;
}

export interface ChatMessageHints {
  role?: 'developer';
  contentForm?: ChatContentForm;
  opaqueParts?: OpaqueContentPart[];
  /** Which vendor field carried the reasoning text. */
  reasoningField?: 'reasoning_content' | 'reasoning';
}

export interface ChatPartHints {
  /** Fields of `image_url` besides `url` (e.g. `detail`). */
  imageUrlExtras?: Record<string, unknown>;
  /** Fields of a tool call's `function` / `custom` object besides name and arguments/input. */
  innerExtras?: Record<string, unknown>;
  /** The tool call was a `custom` (free-form input) call. */
  customToolCall?: boolean;
  /** A reasoning part read from a typed `{type:"thinking"}` content part: its native `thinking` and the text it held. */
  thinkingPart?: { thinking: unknown; text: string };
  /** The tool call had no `type` field. */
  typeAbsent?: boolean;
}

export interface ChatToolHints {
  /** A tool the neutral definition cannot express (custom tools…), sent back verbatim. */
  nativeTool?: unknown;
  /** Fields of `function` besides name/description/parameters (e.g. `strict`). */
  functionExtras?: Record<string, unknown>;
  parametersAbsent?: boolean;
}

export interface ChatSettingsHints {
  streamAbsent?: boolean;
  maxTokensField?: 'max_tokens';
}

/** Splits a `providerFields` record into this adapter's hints and the verbatim native fields. */
export function splitProviderFields<THints extends object>(
  providerFields: ProviderFields | undefined,
): { hints: THints; nativeFields: Record<string, unknown> } {
  if (providerFields === undefined) return { hints: {} as THints, nativeFields: {} };
  const { [CHAT_WIRE_HINTS_KEY]: rawHints, ...nativeFields } = providerFields;
  const hints = typeof rawHints === 'object' && rawHints !== null ? (rawHints as THints) : ({} as THints);
  return { hints, nativeFields };
}

/** Builds a `providerFields` record, or `undefined` when there is nothing to keep. */
export function joinProviderFields(
  nativeFields: Record<string, unknown>,
  hints: object,
): ProviderFields | undefined {
  const hasHints = Object.values(hints).some((value) => value !== undefined);
  if (!hasHints && Object.keys(nativeFields).length === 0) return undefined;
  const cleanHints = Object.fromEntries(Object.entries(hints).filter(([, value]) => value !== undefined));
  return hasHints ? { ...nativeFields, [CHAT_WIRE_HINTS_KEY]: cleanHints } : { ...nativeFields };
}

/** Drops the given keys from an object, returning the rest (the unknown native fields). */
export function omitKeys(value: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const rest: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (!keys.includes(key)) rest[key] = entry;
  }
  return rest;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Re-inserts opaque native parts at their original positions. */
export function insertOpaqueParts(parts: unknown[], opaqueParts: OpaqueContentPart[] | undefined): unknown[] {
  if (opaqueParts === undefined || opaqueParts.length === 0) return parts;
  const merged = [...parts];
  for (const { index, part } of [...opaqueParts].sort((a, b) => a.index - b.index)) {
    merged.splice(Math.min(index, merged.length), 0, part);
  }
  return merged;
}
