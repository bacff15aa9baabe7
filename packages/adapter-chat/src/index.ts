export { chatAdapter, createChatAdapter, type ChatAdapterOptions } from './chat-adapter.js';
export { convertToChatRequest, type ChatRequestConversionOptions } from './convert-to-chat-request.js';
export {
  convertToChatMessages,
  REASONING_ONLY_CONTENT_NOTE,
  TOOL_RESULT_IMAGE_PLACEHOLDER,
  type ChatMessageConversionOptions,
} from './convert-to-chat-messages.js';
export { parseChatRequest } from './parse-chat-request.js';
export { parseChatMessages } from './parse-chat-messages.js';
export { prepareChatTools, prepareChatToolChoice, parseChatTools, parseChatToolChoice } from './prepare-chat-tools.js';
export {
  appendChatMessages,
  withChatToolsDisabled,
  withChatMaxOutputTokens,
  getChatMaxOutputTokens,
  getChatModel,
  withChatModel,
  withChatStreaming,
} from './chat-request-edits.js';
export { buildChatHttpRequest } from './build-chat-http-request.js';
export { decodeChatStream, ChatChunkDecoder } from './chat-stream-decoder.js';
export { ChatToolCallAssembler } from './chat-tool-call-assembler.js';
export { encodeChatStream, ChatChunkEncoder } from './chat-stream-encoder.js';
export { mapChatFinishReason, toChatFinishReason } from './map-chat-finish-reason.js';
export { convertChatUsage, toChatUsage } from './convert-chat-usage.js';
export { classifyChatError, classifyChatStreamError } from './classify-chat-error.js';
export { CHAT_WIRE_HINTS_KEY } from './chat-wire-hints.js';
export { toOpenAiErrorBody } from './openai-error-body.js';
