import { describe, expect, it } from 'vitest';
import { hasFastProperties, haveSameMap } from '../internal/v8-probes.test-helper.js';
import { withRetry, type AttemptContext } from './with-retry.js';

// Issue 19, decision 0291: runTurn's attempt context lives as long as its
// stream, so its layout is memory per open stream.

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

describe('withRetry attempt contexts (issue 19, decision 0291)', () => {
  it('keep fast properties and one hidden class, attempt after attempt', async () => {
    const [first, second] = await contextsOfTwoAttempts();
    expect(hasFastProperties(first!)).toBe(true);
    expect(haveSameMap(first!, second!)).toBe(true);
  });

  it('keep `signal` an own, enumerable property that a copy carries', async () => {
    const [first] = await contextsOfTwoAttempts();
    expect(Object.keys(first!).sort()).toEqual(['attempt', 'attemptId', 'maxOutputTokensOverride', 'previousAttemptId', 'signal']);
    const copy = { ...first! };
    expect(copy.signal).toBeInstanceOf(AbortSignal);
    expect(copy.signal).toBe(first!.signal);
  });

  it('is a check that can fail: a literal with a getter is in dictionary mode', () => {
    let signal: AbortSignal | undefined;
    const literal = { attempt: 0, get signal() { return signal; } };
    expect(hasFastProperties(literal)).toBe(false);
  });
});
