import { TurnError } from './turn-error.js';

/**
 * The one shape of a user abort (R1.6, R2.1): kind `aborted`, code `ABORTED`,
 * never retryable. A string reason (e.g. R3.10's `'interrupt'`) is kept in
 * `details.abortReason`; any other reason stays only in `cause`.
 */
export function createAbortedError(reason?: unknown, cause: unknown = reason): TurnError {
  return new TurnError({
    kind: 'aborted',
    message: 'The request was aborted.',
    details: typeof reason === 'string' ? { abortReason: reason } : {},
    cause,
  });
}
