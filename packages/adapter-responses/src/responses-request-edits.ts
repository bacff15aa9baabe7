import type { Message } from '@turnguard/core';
import type { ResponseCreateParams } from 'openai/resources/responses/responses';
import { convertToResponsesInput } from './convert-to-responses-input.js';
import type { JsonObject } from './native-json.js';
import { readInputItems } from './parse-responses-request.js';

/**
 * Edits of a native Responses body that keep everything else verbatim. Each
 * returns a new object; the input is never mutated.
 */

/** Appends neutral messages as `input` items; a plain-string `input` becomes a user item first. */
export function appendResponsesMessages(native: ResponseCreateParams, messages: Message[]): ResponseCreateParams {
  const input = [...readInputItems(native), ...convertToResponsesInput(messages)];
  return { ...native, input } as ResponseCreateParams;
}

/**
 * R4.5: tool declarations stay (some upstreams fingerprint them); calling is
 * turned off in the Responses dialect, `tool_choice: "none"` (openai-node
 * `ToolChoiceOptions`).
 */
export function withResponsesToolsDisabled(native: ResponseCreateParams): ResponseCreateParams {
  return { ...native, tool_choice: 'none' };
}

/** `max_output_tokens` counts reasoning tokens too (openai-node `ResponseCreateParamsBase`). */
export function withResponsesMaxOutputTokens(native: ResponseCreateParams, maxOutputTokens: number): ResponseCreateParams {
  return { ...native, max_output_tokens: maxOutputTokens };
}

export function getResponsesMaxOutputTokens(native: ResponseCreateParams): number | undefined {
  const value = (native as unknown as JsonObject).max_output_tokens;
  return typeof value === 'number' ? value : undefined;
}

export function getResponsesModel(native: ResponseCreateParams): string {
  const value = (native as unknown as JsonObject).model;
  return typeof value === 'string' ? value : '';
}

export function withResponsesModel(native: ResponseCreateParams, model: string): ResponseCreateParams {
  return { ...native, model };
}

/** Responses reports usage in the terminal event unasked, so only `stream` is set. */
export function withResponsesStreaming(native: ResponseCreateParams): ResponseCreateParams {
  // Already streaming: the request as it is, so its own bytes can be sent (R8.2).
  if (native.stream === true) return native;
  return { ...native, stream: true };
}
