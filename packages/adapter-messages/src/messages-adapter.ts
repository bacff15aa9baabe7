import type { ProtocolAdapter } from '@turnguard/core';
import { buildMessagesHttpRequest } from './build-messages-http-request.js';
import { classifyMessagesError } from './classify-messages-error.js';
import { convertToMessagesRequest } from './convert-to-messages-request.js';
import {
  appendMessages,
  getMaxOutputTokens,
  getThinkingBudget,
  getModel,
  withMaxOutputTokens,
  withModel,
  withStreaming,
  withToolsDisabled,
} from './messages-request-edits.js';
import { decodeMessagesStream } from './messages-stream-decoder.js';
import { encodeMessagesStream } from './messages-stream-encoder.js';
import type { MessageCreateParams } from './messages-types.js';
import { parseMessagesRequest } from './parse-messages-request.js';

/** Anthropic Messages as a turnguard protocol adapter (R7.1–R7.5). Every member is pure except the stream pumps. */
export const messagesAdapter: ProtocolAdapter<MessageCreateParams> = {
  protocol: 'messages',
  buildRequest: convertToMessagesRequest,
  parseRequest: parseMessagesRequest,
  appendMessages,
  withToolsDisabled,
  withMaxOutputTokens,
  getMaxOutputTokens,
  getThinkingBudget,
  getModel,
  withModel,
  withStreaming,
  buildHttpRequest: buildMessagesHttpRequest,
  decodeStream: decodeMessagesStream,
  encodeStream: (events) => encodeMessagesStream(events),
  classifyError: classifyMessagesError,
};
