import { describe, expect, it } from 'vitest';
import type { TurnEvent } from '@turnguard/core';
import { createEventFilter } from './observe-turn-events.js';

const retry: TurnEvent = { type: 'retry', retryNumber: 1, attempt: 1, delayMs: 5, kind: 'rate_limit', code: 'RATE_LIMITED', status: 429, attemptId: 'a2', previousAttemptId: 'a1' };
const usage: TurnEvent = {
  type: 'usage',
  usage: { inputTokens: 1, cachedInputTokens: undefined, cacheCreationInputTokens: undefined, outputTokens: 2, reasoningTokens: undefined, totalTokens: 3 },
};
const text: TurnEvent = { type: 'text-delta', id: 't', delta: 'hi' };

describe('createEventFilter', () => {
  it('notes retries for metrics and drops usage when the Chat client did not ask for it (R5.2)', () => {
    const retries: unknown[] = [];
    const keep = createEventFilter({ dropUsage: true, observer: { onRetry: (event) => retries.push(event) } });
    expect([retry, text, usage, usage, text].filter(keep).map((event) => event.type)).toEqual(['retry', 'text-delta', 'text-delta']);
    expect(retries).toEqual([retry]);
  });

  it('keeps usage when asked for', () => {
    const keep = createEventFilter({ dropUsage: false, observer: { onRetry: () => undefined } });
    expect([text, usage].filter(keep).map((event) => event.type)).toEqual(['text-delta', 'usage']);
  });
});
