import type { ProviderFields } from '@turnguard/core';
import { isJsonObject, type JsonObject } from './native-json.js';

/**
 * How a Responses request was shaped, beyond what the neutral types model.
 * Stored under one reserved key of a neutral object's `providerFields` (the
 * other keys there are unknown native fields, spread back verbatim), so that
 * `buildRequest(parseRequest(x))` reproduces `x` (R7.1).
 */
export interface ResponsesShape {
  /** A system message that came from top-level `instructions` (vs an `input` item). */
  placement?: 'instructions' | 'input';
  /** A system message sent with role `developer`. */
  role?: 'developer';
  /** `content` was a plain string, not a list of parts. */
  contentAsString?: boolean;
  /** The whole request `input` was this one plain string. */
  inputAsString?: boolean;
  /** Content holding parts we cannot model (files, audio, refusals…), sent back verbatim. */
  rawContent?: unknown[];
  /** A tool call / tool output that was a custom tool's, not a function's. */
  itemType?: 'custom_tool_call' | 'custom_tool_call_output';
  /** An input item we cannot model at all (web_search_call, item_reference…), sent back verbatim. */
  rawItem?: JsonObject;
  /** A hosted / custom tool declaration we cannot model, sent back verbatim. */
  rawTool?: JsonObject;
}

export const RESPONSES_SHAPE_KEY = 'responsesShape';

export function readResponsesShape(providerFields: ProviderFields | undefined): ResponsesShape {
  const shape = providerFields?.[RESPONSES_SHAPE_KEY];
  return isJsonObject(shape) ? (shape as ResponsesShape) : {};
}

/** The unknown native fields of a neutral object (its providerFields without the shape key). */
export function readNativeExtras(providerFields: ProviderFields | undefined): JsonObject {
  if (providerFields === undefined) return {};
  const { [RESPONSES_SHAPE_KEY]: _shape, ...extras } = providerFields;
  return extras;
}

/** providerFields holding `extras` and, when it says anything, `shape`. */
export function buildProviderFields(extras: JsonObject, shape: ResponsesShape = {}): ProviderFields {
  const hasShape = Object.values(shape).some((value) => value !== undefined);
  return hasShape ? { ...extras, [RESPONSES_SHAPE_KEY]: shape } : { ...extras };
}
