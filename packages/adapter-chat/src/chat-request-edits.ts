import type { ChatCompletionCreateParams } from 'openai/resources/chat/completions';
import type { Message } from '@turnguard/core';
import { convertToChatMessages, type ChatMessageConversionOptions } from './convert-to-chat-messages.js';

/** Edits of a native Chat request. Each returns a new object and keeps every other field. */

export function appendChatMessages(
  native: ChatCompletionCreateParams,
  messages: readonly Message[],
  options: ChatMessageConversionOptions = {},
): ChatCompletionCreateParams {
  return { ...native, messages: [...native.messages, ...convertToChatMessages(messages, options)] };
}

/**
 * R4.5: tool declarations stay (some upstreams fingerprint them) and calling is
 * turned off with Chat's own dialect, `tool_choice: "none"`. `parallel_tool_calls`
 * is kept: OpenAI rejects it only when no `tools` are declared ("'parallel_tool_calls'
 * is only allowed when 'tools' are specified", openai/swarm#30), and tools are kept.
 * With no tools declared there is nothing to disable, and OpenAI rejects a
 * `tool_choice` without `tools`, so the request is returned unchanged.
 * The deprecated `functions` list gets `function_call: "none"` likewise.
 */
export function withChatToolsDisabled(native: ChatCompletionCreateParams): ChatCompletionCreateParams {
  const edited: Record<string, unknown> = { ...native };
  if (Array.isArray(native.tools) && native.tools.length > 0) edited.tool_choice = 'none';
  if (Array.isArray(native.functions) && native.functions.length > 0) edited.function_call = 'none';
  return edited as unknown as ChatCompletionCreateParams;
}

/** Sets the output cap in the field the request already uses; `max_completion_tokens` by default. */
export function withChatMaxOutputTokens(
  native: ChatCompletionCreateParams,
  maxOutputTokens: number,
): ChatCompletionCreateParams {
  const usesLegacyField = typeof native.max_tokens === 'number' && typeof native.max_completion_tokens !== 'number';
  return usesLegacyField
    ? { ...native, max_tokens: maxOutputTokens }
    : { ...native, max_completion_tokens: maxOutputTokens };
}

export function getChatMaxOutputTokens(native: ChatCompletionCreateParams): number | undefined {
  if (typeof native.max_completion_tokens === 'number') return native.max_completion_tokens;
  if (typeof native.max_tokens === 'number') return native.max_tokens;
  return undefined;
}

export function getChatModel(native: ChatCompletionCreateParams): string {
  return native.model;
}

export function withChatModel(native: ChatCompletionCreateParams, model: string): ChatCompletionCreateParams {
  return { ...native, model };
}

/**
 * Streaming on, with usage asked for: OpenAI sends the usage chunk only with
 * `stream_options.include_usage: true` (openai-node ChatCompletionStreamOptions).
 */
export function withChatStreaming(native: ChatCompletionCreateParams): ChatCompletionCreateParams {
  // Already streaming with usage: the request as it is, so its own bytes can be sent (R8.2).
  if (native.stream === true && native.stream_options?.include_usage === true) return native;
  return { ...native, stream: true, stream_options: { ...native.stream_options, include_usage: true } };
}
