import { describe, expect, it } from 'vitest';
import type { TurnEvent } from '@turnguard/core';
import { observeTurnEvents } from './observe-turn-events.js';

const retry: TurnEvent = { type: 'retry', retryNumber: 1, attempt: 1, delayMs: 5, kind: 'rate_limit', code: 'RATE_LIMITED', status: 429, attemptId: 'a2', previousAttemptId: 'a1' };
const usage: TurnEvent = {
  type: 'usage',
  usage: { inputTokens: 1, cachedInputTokens: undefined, cacheCreationInputTokens: undefined, outputTokens: 2, reasoningTokens: undefined, totalTokens: 3 },
};
const text: TurnEvent = { type: 'text-delta', id: 't', delta: 'hi' };

function sourceOf(events: TurnEvent[]): { iterable: AsyncIterable<TurnEvent>; returned: () => boolean } {
  let returned = false;
  async function* generate(): AsyncGenerator<TurnEvent> {
    try {
      yield* events;
    } finally {
      returned = true;
    }
  }
  return { iterable: generate(), returned: () => returned };
}

async function collect(iterable: AsyncIterable<TurnEvent>): Promise<string[]> {
  const types: string[] = [];
  for await (const event of iterable) types.push(event.type);
  return types;
}

describe('observeTurnEvents', () => {
  it('notes retries for metrics and drops usage when the Chat client did not ask for it', async () => {
    const retries: unknown[] = [];
    const { iterable } = sourceOf([retry, text, usage, usage, text]);
    const types = await collect(observeTurnEvents(iterable, { dropUsage: true, observer: { onRetry: (event) => retries.push(event) } }));
    expect(types).toEqual(['retry', 'text-delta', 'text-delta']);
    expect(retries).toEqual([retry]);
  });

  it('keeps usage when asked for', async () => {
    const { iterable } = sourceOf([text, usage]);
    expect(await collect(observeTurnEvents(iterable, { dropUsage: false, observer: { onRetry: () => undefined } }))).toEqual(['text-delta', 'usage']);
  });

  it('R8.4 stopping early returns the source (which stops the turn)', async () => {
    const source = sourceOf([text, text, text]);
    for await (const _event of observeTurnEvents(source.iterable, { dropUsage: false, observer: { onRetry: () => undefined } })) break;
    expect(source.returned()).toBe(true);
  });
});
