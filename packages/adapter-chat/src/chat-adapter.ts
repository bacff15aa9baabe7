import type { ChatCompletionCreateParams } from 'openai/resources/chat/completions';
import type { ProtocolAdapter } from '@turnguard/core';
import { appendChatMessages, getChatMaxOutputTokens, getChatModel, withChatMaxOutputTokens, withChatModel, withChatStreaming, withChatToolsDisabled } from './chat-request-edits.js';
import { buildChatHttpRequest } from './build-chat-http-request.js';
import { classifyChatError } from './classify-chat-error.js';
import { convertToChatRequest, type ChatRequestConversionOptions } from './convert-to-chat-request.js';
import { decodeChatStream } from './chat-stream-decoder.js';
import { encodeChatStream } from './chat-stream-encoder.js';
import { parseChatRequest } from './parse-chat-request.js';

export type ChatAdapterOptions = ChatRequestConversionOptions;

/** The Chat Completions `ProtocolAdapter` (R7), with options for compatible servers' dialects. */
export function createChatAdapter(options: ChatAdapterOptions = {}): ProtocolAdapter<ChatCompletionCreateParams> {
  return {
    protocol: 'chat',
    buildRequest: (prompt, settings) => convertToChatRequest(prompt, settings, options),
    parseRequest: (native) => parseChatRequest(native),
    appendMessages: (native, messages) => appendChatMessages(native, messages, options),
    withToolsDisabled: withChatToolsDisabled,
    withMaxOutputTokens: withChatMaxOutputTokens,
    getMaxOutputTokens: getChatMaxOutputTokens,
    getModel: getChatModel,
    withModel: withChatModel,
    withStreaming: withChatStreaming,
    buildHttpRequest: buildChatHttpRequest,
    decodeStream: decodeChatStream,
    encodeStream: encodeChatStream,
    classifyError: classifyChatError,
  };
}

/** The adapter with default options: `max_completion_tokens`, reasoning sent back as `reasoning_content`. */
export const chatAdapter: ProtocolAdapter<ChatCompletionCreateParams> = createChatAdapter();
