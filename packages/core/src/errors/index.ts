export { TurnError, type TurnErrorOptions } from './turn-error.js';
export { ERROR_KINDS, isRetryableByDefault, type ErrorKind, type DefaultErrorCode } from './error-kind.js';
export { classifyHttpError, type ClassifyHttpErrorOptions } from './classify-http-error.js';
export { classifyThrownError } from './classify-thrown-error.js';
export { createAbortedError } from './create-aborted-error.js';
export { HttpErrorResponse, readHttpErrorBody } from './http-error-response.js';
export { toAssistantErrorMessage } from './to-assistant-error-message.js';
export { describePairingAround, findUnpairedToolCalls, findOrphanToolResults } from './pairing-diagnostic.js';
export { attachPairingDiagnostic, readPairingRejection, readPairingTokens } from './attach-pairing-diagnostic.js';
