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
  it('drops usage when the Chat client did not ask for it (R5.2)', () => {
    const keep = createEventFilter({ dropUsage: true });
    expect([retry, text, usage, usage, text].filter(keep).map((event) => event.type)).toEqual(['retry', 'text-delta', 'text-delta']);
  });

  it('keeps usage when asked for', () => {
    const keep = createEventFilter({ dropUsage: false });
    expect([text, usage].filter(keep).map((event) => event.type)).toEqual(['text-delta', 'usage']);
  });
});
