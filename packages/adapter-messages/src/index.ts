export { messagesAdapter } from './messages-adapter.js';
export { convertToMessagesRequest, convertToMessagesMessages, DEFAULT_MAX_TOKENS } from './convert-to-messages-request.js';
export { parseMessagesRequest } from './parse-messages-request.js';
export { decodeMessagesStream, MessagesStreamDecoder } from './messages-stream-decoder.js';
export { encodeMessagesStream, MessagesStreamEncoder, type EncodeMessagesStreamOptions } from './messages-stream-encoder.js';
export { toMessagesErrorType } from './messages-error-type.js';
export { mapMessagesStopReason, mapFinishReasonToMessages } from './map-messages-stop-reason.js';
export { convertMessagesUsage, convertUsageToMessages, mergeMessagesUsage } from './convert-messages-usage.js';
export { prepareMessagesTools, prepareMessagesToolChoice, parseMessagesTools, parseMessagesToolChoice } from './prepare-messages-tools.js';
export { classifyMessagesError, classifyMessagesStreamError } from './classify-messages-error.js';
export {
  appendMessages,
  withToolsDisabled,
  withMaxOutputTokens,
  getMaxOutputTokens,
  getThinkingBudget,
  getModel,
  withModel,
  withStreaming,
} from './messages-request-edits.js';
export { buildMessagesHttpRequest, ANTHROPIC_VERSION } from './build-messages-http-request.js';
export { SHAPE_HINT_KEY, type ShapeHint } from './messages-shape-hints.js';
export type { MessageCreateParams } from './messages-types.js';
