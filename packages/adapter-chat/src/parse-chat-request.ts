import type { ChatCompletionCreateParams } from 'openai/resources/chat/completions';
import type { Prompt, TurnSettings } from '@turnguard/core';
import { TurnError } from '@turnguard/core';
import { isRecord, joinProviderFields, type ChatSettingsHints } from './chat-wire-hints.js';
import { parseChatMessages } from './parse-chat-messages.js';
import { parseChatToolChoice, parseChatTools } from './prepare-chat-tools.js';

/**
 * Chat Completions request body → neutral prompt + settings, for the gateway
 * (R7.1). Lossless: every top-level field not modelled (temperature,
 * stream_options, metadata, vendor fields like `top_k` or `enable_thinking`)
 * lands in `settings.providerFields`, so `convertToChatRequest(parseChatRequest(x))`
 * deep-equals `x`.
 */
export function parseChatRequest(native: ChatCompletionCreateParams): { prompt: Prompt; settings: TurnSettings } {
  if (!isRecord(native)) throw invalidRequest('the request body must be a JSON object');
  const { model, messages, stream, max_completion_tokens, max_tokens, tools, tool_choice, ...rest } = native as Record<
    string,
    unknown
  >;
  if (typeof model !== 'string') throw invalidRequest('`model` must be a string');
  const prompt: Prompt = { messages: parseChatMessages(messages) };

  const passthrough: Record<string, unknown> = { ...rest };
  const hints: ChatSettingsHints = {};
  const settings: TurnSettings = { model, stream: stream === true };
  if (stream === undefined) hints.streamAbsent = true;
  else if (typeof stream !== 'boolean') passthrough.stream = stream;

  if (typeof max_completion_tokens === 'number') {
    settings.maxOutputTokens = max_completion_tokens;
    if (max_tokens !== undefined) passthrough.max_tokens = max_tokens;
  } else {
    if (max_completion_tokens !== undefined) passthrough.max_completion_tokens = max_completion_tokens;
    if (typeof max_tokens === 'number') {
      settings.maxOutputTokens = max_tokens;
      hints.maxTokensField = 'max_tokens';
    } else if (max_tokens !== undefined) {
      passthrough.max_tokens = max_tokens;
    }
  }

  if (Array.isArray(tools)) settings.tools = parseChatTools(tools);
  else if (tools !== undefined) passthrough.tools = tools;

  const toolChoice = parseChatToolChoice(tool_choice);
  if (toolChoice !== undefined) settings.toolChoice = toolChoice;
  else if (tool_choice !== undefined) passthrough.tool_choice = tool_choice;

  const providerFields = joinProviderFields(passthrough, hints);
  if (providerFields !== undefined) settings.providerFields = providerFields;
  return { prompt, settings };
}

function invalidRequest(message: string): TurnError {
  return new TurnError({ kind: 'invalid_request', code: 'INVALID_CHAT_REQUEST', message, retryable: false });
}
