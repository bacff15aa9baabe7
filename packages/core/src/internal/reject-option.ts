import { TurnError } from '../errors/turn-error.js';

/** Bad configuration is a clear, typed, non-retryable error naming the option, thrown at call time. */
export function rejectOption(code: string, message: string, option: string): never {
  throw new TurnError({ kind: 'invalid_request', code, retryable: false, message, details: { option } });
}
