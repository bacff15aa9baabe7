import type { ProviderFields } from '@turnguard/core';
import { isRecord, type NativeRecord } from './messages-types.js';

/**
 * How a native request was shaped where the neutral model has no room for it
 * (string vs block content, unmodelled blocks and tools, message boundaries).
 * Stored under one reserved key of `providerFields` and never sent upstream,
 * so `buildRequest(parseRequest(x))` deep-equals `x` (R7.1). Only hints that
 * differ from the default build are recorded, so neutral prompts written by
 * hand need none. See docs/decisions/0040.
 */
export const SHAPE_HINT_KEY = 'turnguard:messages-shape';

export interface IndexedExtra {
  /** Position in the native array the value came from. */
  index: number;
  value: unknown;
}

export interface ShapeHint {
  /** The native `content` (or `system`) was a string / a block array. */
  content?: 'string' | 'blocks';
  /** Native blocks without a neutral part (documents, server tools…), by position. */
  extraBlocks?: IndexedExtra[];
  /** A tool_result had no `content` field at all. */
  contentAbsent?: boolean;
  /** This message started a new native message although the previous one had the same native role. */
  newNativeMessage?: boolean;
  /** A `role: "system"` message that sat inside `messages`, not in top-level `system`. */
  inlineSystem?: boolean;
  /** Tool declarations without a neutral form (server tools), by position in `tools`. */
  extraTools?: IndexedExtra[];
  /** Native tool_choice keys beyond `type`/`name` (e.g. `disable_parallel_tool_use`). */
  toolChoiceExtras?: NativeRecord;
}

export function readShapeHint(providerFields: ProviderFields | undefined): ShapeHint {
  const hint = providerFields?.[SHAPE_HINT_KEY];
  return isRecord(hint) ? (hint as ShapeHint) : {};
}

/** Provider fields without the shape hint: the native keys to copy back verbatim. */
export function nativeFieldsOf(providerFields: ProviderFields | undefined): NativeRecord {
  if (providerFields === undefined) return {};
  const { [SHAPE_HINT_KEY]: _hint, ...rest } = providerFields;
  return rest;
}

/** Keys of `native` not in `known`, plus a shape hint when it says anything; undefined when empty. */
export function collectProviderFields(
  native: NativeRecord,
  known: ReadonlyArray<string>,
  hint: ShapeHint = {},
): ProviderFields | undefined {
  const fields: ProviderFields = {};
  for (const [key, value] of Object.entries(native)) {
    if (!known.includes(key)) fields[key] = value;
  }
  const cleanHint = Object.fromEntries(Object.entries(hint).filter(([, value]) => value !== undefined));
  if (Object.keys(cleanHint).length > 0) fields[SHAPE_HINT_KEY] = cleanHint;
  return Object.keys(fields).length > 0 ? fields : undefined;
}

/** Puts values recorded with their native positions back into a rebuilt array. */
export function insertIndexedExtras<T>(items: T[], extras: IndexedExtra[] | undefined): T[] {
  if (extras === undefined || extras.length === 0) return items;
  const result = [...items];
  for (const extra of [...extras].sort((a, b) => a.index - b.index)) {
    result.splice(Math.min(extra.index, result.length), 0, extra.value as T);
  }
  return result;
}
