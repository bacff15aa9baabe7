import type { Message } from '@turnguard/core';
import { convertToMessagesRequest } from './convert-to-messages-request.js';
import type { MessageCreateParams } from './messages-types.js';
import { parseMessagesRequest } from './parse-messages-request.js';

/**
 * Small immutable edits of a native Messages request, used by core's retry
 * and recovery (R1.8, R3.3, R4.4, R4.5, R3.9). Each returns a new object and
 * leaves every other field as it was.
 */

/**
 * Appends neutral messages. Goes through the lossless neutral form, so the
 * appended messages follow the same rules as `buildRequest` (a user message
 * after a user message joins it, as the API would merge them anyway; a
 * system message joins top-level `system`).
 */
export function appendMessages(native: MessageCreateParams, messages: Message[]): MessageCreateParams {
  const { prompt, settings } = parseMessagesRequest(native);
  return convertToMessagesRequest({ messages: [...prompt.messages, ...messages] }, settings);
}

/**
 * R4.5 in the Messages dialect: declarations stay (some upstreams fingerprint
 * them, and history may hold tool_use blocks that need them), calling is
 * switched off with `tool_choice: {type: "none"}` (SDK ToolChoiceNone).
 * Without tool declarations the model cannot call a tool, so nothing changes.
 */
export function withToolsDisabled(native: MessageCreateParams): MessageCreateParams {
  if (!Array.isArray(native.tools) || native.tools.length === 0) return native;
  return { ...native, tool_choice: { type: 'none' } };
}

export function withMaxOutputTokens(native: MessageCreateParams, maxOutputTokens: number): MessageCreateParams {
  return { ...native, max_tokens: maxOutputTokens };
}

export function getMaxOutputTokens(native: MessageCreateParams): number | undefined {
  return typeof native.max_tokens === 'number' ? native.max_tokens : undefined;
}

export function getModel(native: MessageCreateParams): string {
  return native.model;
}

export function withModel(native: MessageCreateParams, model: string): MessageCreateParams {
  return { ...native, model };
}

/** Messages always reports usage in the stream (message_start / message_delta); only `stream` is needed. */
export function withStreaming(native: MessageCreateParams): MessageCreateParams {
  return { ...native, stream: true };
}
