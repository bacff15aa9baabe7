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

/** Anthropic's smallest accepted `thinking.budget_tokens` (API docs, extended thinking). */
const MIN_THINKING_BUDGET_TOKENS = 1024;

/**
 * Anthropic rejects `max_tokens <= thinking.budget_tokens` with a 400. A
 * smaller cap (R4.7's 8192-token recovery, R1.8's resize) therefore shrinks
 * an enabled thinking budget below it, or turns thinking off when no valid
 * budget fits: a recovery only asks for a conclusion.
 */
export function withMaxOutputTokens(native: MessageCreateParams, maxOutputTokens: number): MessageCreateParams {
  const edited = { ...native, max_tokens: maxOutputTokens };
  const budget = getThinkingBudget(native);
  if (budget === undefined || budget < maxOutputTokens) return edited;
  const fitted = maxOutputTokens - 1;
  return fitted >= MIN_THINKING_BUDGET_TOKENS
    ? { ...edited, thinking: { ...native.thinking, type: 'enabled', budget_tokens: fitted } }
    : { ...edited, thinking: { type: 'disabled' } };
}

/** The enabled extended-thinking budget, if any (R1.8 needs it for the resize floor). */
export function getThinkingBudget(native: MessageCreateParams): number | undefined {
  const thinking = native.thinking as { type?: unknown; budget_tokens?: unknown } | undefined;
  return thinking?.type === 'enabled' && typeof thinking.budget_tokens === 'number' ? thinking.budget_tokens : undefined;
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
  // Already streaming: the request as it is, so its own bytes can be sent (R8.2).
  if (native.stream === true) return native;
  return { ...native, stream: true };
}
