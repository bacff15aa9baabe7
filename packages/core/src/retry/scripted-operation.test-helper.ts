import type { AttemptContext } from './with-retry.js';

/**
 * Test helper: an operation that fails with the scripted values in order
 * (a thrown value each) and then succeeds with `'ok'`. Records every context
 * and the fake-clock time of every physical attempt.
 */
export function createScriptedOperation(failures: unknown[]): {
  operation: (context: AttemptContext) => Promise<string>;
  contexts: AttemptContext[];
  startedAt: number[];
} {
  const contexts: AttemptContext[] = [];
  const startedAt: number[] = [];
  const operation = async (context: AttemptContext): Promise<string> => {
    contexts.push(context);
    startedAt.push(Date.now());
    const failure = failures[contexts.length - 1];
    if (contexts.length <= failures.length) throw failure;
    return 'ok';
  };
  return { operation, contexts, startedAt };
}

/** Settles a promise into a plain value so fake-timer tests never see an unhandled rejection. */
export function settle<T>(promise: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  return promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}
