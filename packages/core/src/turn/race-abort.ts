import { ignore } from '../internal/ignore.js';

/** What `raceAbort` resolves to when the signal won. */
export const ABORTED: unique symbol = Symbol('aborted');
export type Aborted = typeof ABORTED;

/**
 * `promise`'s value, or `ABORTED` as soon as `signal` aborts: a custom fetch
 * may ignore the signal it was given, and an abort must end an in-flight
 * request at once all the same (R1.6). A rejection after the abort also
 * reads as `ABORTED`.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | Aborted> {
  if (signal.aborted) {
    promise.catch(ignore);
    return Promise.resolve(ABORTED);
  }
  return new Promise<T | Aborted>((resolve, reject) => {
    const onAbort = (): void => {
      promise.catch(ignore);
      resolve(ABORTED);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) resolve(ABORTED);
        else reject(error);
      },
    );
  });
}
