import type { TurnEvent } from '@turnguard/core';

export interface ObserveOptions {
  /**
   * Chat only: the client did not ask for `stream_options.include_usage`, so
   * it gets no usage chunk (a chunk with empty `choices` surprises clients
   * that index `choices[0]`); runTurn always asks upstream for usage so stats
   * stay exact (R5.2).
   */
  dropUsage: boolean;
  /** Told of each move to a fallback (R11.7: `turnguard_fallbacks_total`). */
  onFallback?: (event: Extract<TurnEvent, { type: 'fallback' }>) => void;
}

/** Whether the client gets an event of runTurn's; called once per event, in order. */
export type EventFilter = (event: TurnEvent) => boolean;

/**
 * Drops what the client did not ask for (retries are observed through
 * runTurn's `retry.onRetry`, when they are decided, R12.3). A plain predicate
 * the relay calls on each event it pulls from runTurn, not an iterator
 * wrapped around runTurn's: a wrapper adds a promise and its callback per
 * event, and each open stream holds one of those for as long as its upstream
 * is silent (per-stream memory: `bench/gateway/memory-run.mjs`, decision 0320).
 */
export function createEventFilter(options: ObserveOptions): EventFilter {
  const { dropUsage, onFallback } = options;
  return (event) => {
    if (event.type === 'fallback') onFallback?.(event);
    return !(event.type === 'usage' && dropUsage);
  };
}

/** Events that neither start the host-visible response nor end it: they can wait until the first one that does. */
export function isPreludeEvent(event: TurnEvent): boolean {
  return event.type === 'retry' || event.type === 'warning' || event.type === 'usage' || event.type === 'recovery-start' || event.type === 'fallback';
}
