import type { TurnEvent } from '@turnguard/core';

export interface EventObserver {
  onRetry(event: Extract<TurnEvent, { type: 'retry' }>): void;
}

export interface ObserveOptions {
  /**
   * Chat only: the client did not ask for `stream_options.include_usage`, so
   * it gets no usage chunk (a chunk with empty `choices` surprises clients
   * that index `choices[0]`); runTurn always asks upstream for usage so stats
   * stay exact (R5.2).
   */
  dropUsage: boolean;
  observer: EventObserver;
}

/**
 * Passes runTurn's events through one at a time (so the turn still relays
 * as it arrives, R8.2), noting retries for metrics and dropping what the
 * client did not ask for. Returning this iterator stops the turn (R8.4).
 * A plain iterator, not an async generator: one `then` per event instead of
 * a generator's resume/await/yield hops (bench/README.md, gateway section).
 */
export function observeTurnEvents(events: AsyncIterable<TurnEvent>, options: ObserveOptions): AsyncIterableIterator<TurnEvent> {
  const source = events[Symbol.asyncIterator]();
  const keep = (step: IteratorResult<TurnEvent, unknown>): boolean => {
    if (step.done === true) return true;
    const event = step.value;
    if (event.type === 'retry') options.observer.onRetry(event);
    return !(event.type === 'usage' && options.dropUsage);
  };
  const pull = (): Promise<IteratorResult<TurnEvent, undefined>> =>
    source.next().then((step) => (keep(step) ? (step.done === true ? { done: true, value: undefined } : step) : pull()));
  return {
    next: pull,
    return: async () => {
      await source.return?.();
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/** Events that neither start the host-visible response nor end it: they can wait until the first one that does. */
export function isPreludeEvent(event: TurnEvent): boolean {
  return event.type === 'retry' || event.type === 'warning' || event.type === 'usage' || event.type === 'recovery-start';
}
