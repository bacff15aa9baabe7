export { responsesAdapter } from './responses-adapter.js';
export { convertToResponsesRequest } from './convert-to-responses-request.js';
export { parseResponsesRequest } from './parse-responses-request.js';
export { decodeResponsesStream } from './responses-stream-decoder.js';
export { encodeResponsesStream, ResponsesStreamEncoder } from './responses-stream-encoder.js';
export { mapResponsesFinishReason } from './map-responses-finish-reason.js';
export { convertResponsesUsage, convertToResponsesUsage } from './convert-responses-usage.js';
export { classifyResponsesError, classifyResponsesStreamError } from './classify-responses-error.js';
export {
  appendResponsesMessages,
  withResponsesToolsDisabled,
  withResponsesMaxOutputTokens,
  getResponsesMaxOutputTokens,
  getResponsesModel,
  withResponsesModel,
  withResponsesStreaming,
} from './responses-request-edits.js';
export { buildResponsesHttpRequest } from './build-responses-http-request.js';
