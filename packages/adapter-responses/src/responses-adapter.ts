import type { ProtocolAdapter } from '@turnguard/core';
import type { ResponseCreateParams } from 'openai/resources/responses/responses';
import { buildResponsesHttpRequest } from './build-responses-http-request.js';
import { classifyResponsesError } from './classify-responses-error.js';
import { convertToResponsesRequest } from './convert-to-responses-request.js';
import { parseResponsesRequest } from './parse-responses-request.js';
import {
  appendResponsesMessages,
  getResponsesMaxOutputTokens,
  getResponsesModel,
  withResponsesMaxOutputTokens,
  withResponsesModel,
  withResponsesStreaming,
  withResponsesToolsDisabled,
} from './responses-request-edits.js';
import { decodeResponsesStream } from './responses-stream-decoder.js';
import { encodeResponsesStream } from './responses-stream-encoder.js';

/** OpenAI Responses (`POST /v1/responses`) for turnguard's core (R7.1–R7.5). */
export const responsesAdapter: ProtocolAdapter<ResponseCreateParams> = {
  protocol: 'responses',
  buildRequest: convertToResponsesRequest,
  parseRequest: parseResponsesRequest,
  appendMessages: appendResponsesMessages,
  withToolsDisabled: withResponsesToolsDisabled,
  withMaxOutputTokens: withResponsesMaxOutputTokens,
  getMaxOutputTokens: getResponsesMaxOutputTokens,
  getModel: getResponsesModel,
  withModel: withResponsesModel,
  withStreaming: withResponsesStreaming,
  buildHttpRequest: buildResponsesHttpRequest,
  decodeStream: decodeResponsesStream,
  encodeStream: encodeResponsesStream,
  classifyError: classifyResponsesError,
};
