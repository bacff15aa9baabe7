import type { ChatCompletionCreateParams } from 'openai/resources/chat/completions';
import type { Prompt, TurnSettings } from '@turnguard/core';
import { splitProviderFields, type ChatSettingsHints } from './chat-wire-hints.js';
import { convertToChatMessages, type ChatMessageConversionOptions } from './convert-to-chat-messages.js';
import { prepareChatToolChoice, prepareChatTools } from './prepare-chat-tools.js';

export interface ChatRequestConversionOptions extends ChatMessageConversionOptions {
  /**
   * Output cap field for requests built from neutral settings.
   * `max_completion_tokens` (default) is what OpenAI wants and the only one
   * reasoning models accept (vercel/ai reasoning-model-legacy-parameter-error.json);
   * many compatible servers accept only `max_tokens`. A parsed request keeps its own.
   */
  maxTokensField?: 'max_completion_tokens' | 'max_tokens';
}

/** Neutral prompt + settings → Chat Completions request body (R7.1). */
export function convertToChatRequest(
  prompt: Prompt,
  settings: TurnSettings,
  options: ChatRequestConversionOptions = {},
): ChatCompletionCreateParams {
  const { hints, nativeFields } = splitProviderFields<ChatSettingsHints>(settings.providerFields);
  const request: Record<string, unknown> = {
    ...nativeFields,
    model: settings.model,
    messages: convertToChatMessages(prompt.messages, options),
  };
  // An absent `stream` and `stream: false` mean the same; keep whichever the client sent.
  if (settings.stream || (hints.streamAbsent !== true && !('stream' in nativeFields))) {
    request.stream = settings.stream;
  }
  if (settings.maxOutputTokens !== undefined) {
    request[hints.maxTokensField ?? options.maxTokensField ?? 'max_completion_tokens'] = settings.maxOutputTokens;
  }
  if (settings.tools !== undefined) request.tools = prepareChatTools(settings.tools);
  if (settings.toolChoice !== undefined) request.tool_choice = prepareChatToolChoice(settings.toolChoice);
  return request as unknown as ChatCompletionCreateParams;
}
