import { describe, expect, it } from 'vitest';
import { withRetry, type AttemptContext } from './with-retry.js';

// A host may copy or log the attempt context: it is a plain object whose
// `signal` is an own, enumerable property like the rest (R1.6).

async function contextsOfTwoAttempts(): Promise<AttemptContext[]> {
  const contexts: AttemptContext[] = [];
  await withRetry(
    async (context) => {
      contexts.push(context);
      if (contexts.length === 1) throw new TurnLikeError();
      return 'ok';
    },
    { initialDelayMs: 0, jitterRatio: 0 },
  );
  return contexts;
}

class TurnLikeError extends Error {
  readonly status = 503;
}

describe('withRetry attempt contexts', () => {
  it('keep `signal` an own, enumerable property that a copy carries', async () => {
    const [first, second] = await contextsOfTwoAttempts();
    expect(Object.keys(first!).sort()).toEqual(['attempt', 'attemptId', 'maxOutputTokensOverride', 'previousAttemptId', 'signal']);
    const copy = { ...first! };
    expect(copy.signal).toBeInstanceOf(AbortSignal);
    expect(copy.signal).toBe(first!.signal);
    expect([first!.attempt, second!.attempt, second!.previousAttemptId]).toEqual([0, 1, first!.attemptId]);
  });
});
