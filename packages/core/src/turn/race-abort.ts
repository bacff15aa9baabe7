export type Raced<T> = { aborted: true } | { aborted: false; value: T };

/**
 * Waits for `promise` or the signal, whichever comes first. A decoder or a
 * custom fetch may ignore the signal, so every await on the wire is raced
 * (R1.6: an abort ends an in-flight request at once).
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<Raced<T>> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.resolve({ aborted: true });
  }
  return new Promise<Raced<T>>((resolve, reject) => {
    const onAbort = (): void => {
      promise.catch(() => undefined);
      resolve({ aborted: true });
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve({ aborted: false, value });
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) resolve({ aborted: true });
        else reject(error);
      },
    );
  });
}
