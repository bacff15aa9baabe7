export { TurnError, type TurnErrorOptions } from './turn-error.js';
export { ERROR_KINDS, isRetryableByDefault, type ErrorKind, type DefaultErrorCode } from './error-kind.js';
