import type { TurnEvent } from '../types/turn-event.js';
import { LazyResultPromise } from '../internal/lazy-result-promise.js';
import { EventChannel } from './event-channel.js';
import type { TurnResult, TurnRun } from './turn-result.js';

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * Wraps the turn engine as what the host holds: one async iterator over the
 * events plus `result`. The engine starts on the first pull (or when
 * `result` is awaited). Stopping early (`break` / `return()`) aborts the
 * in-flight request, and `return()` resolves only after the engine has
 * recorded the turn, so `recordTurn` has run exactly once by then (R6.2).
 */
export function createTurnRun(
  execute: (channel: EventChannel) => Promise<TurnResult>,
  onConsumerStop: () => void,
): TurnRun {
  let resolveResult!: (result: TurnResult) => void;
  const settled = new Promise<TurnResult>((resolve) => {
    resolveResult = resolve;
  });
  /** The host has seen the end (or stopped): later `next()` calls are done at once. */
  let ended = false;
  let engine: Promise<TurnResult> | undefined;
  // The host's last step waits for the engine, so `recordTurn` has run by then (R6.2).
  const channel = new EventChannel(() => {
    ended = true;
    return startEngine().then(() => DONE);
  });
  const startEngine = (): Promise<TurnResult> => {
    engine ??= execute(channel).then((result) => {
      channel.close();
      resolveResult(result);
      return result;
    });
    return engine;
  };

  // A plain iterator over the channel, not an async generator (decision 0180).
  let iterator: AsyncIterableIterator<TurnEvent> | undefined;
  const acquire = (): AsyncIterableIterator<TurnEvent> => {
    iterator ??= {
      next: (): Promise<IteratorResult<TurnEvent, undefined>> => {
        if (ended) return Promise.resolve(DONE);
        startEngine();
        return channel.pull();
      },
      return: async (): Promise<IteratorResult<TurnEvent, undefined>> => {
        if (ended) return DONE;
        // Stopped early — before the first pull too: the in-flight request is
        // aborted (or none is made), and the turn is still recorded once (R6.2).
        ended = true;
        channel.stopConsumer();
        onConsumerStop();
        await startEngine();
        return DONE;
      },
      [Symbol.asyncIterator]() {
        return this;
      },
    };
    return iterator;
  };
  const drainIfIdle = (): void => {
    if (iterator !== undefined) return;
    const drained = acquire();
    void (async () => {
      for await (const _event of drained) {
        // Nobody is watching the events; the turn still runs to its end.
      }
    })();
  };

  return {
    [Symbol.asyncIterator]: acquire,
    result: new LazyResultPromise<TurnResult>(settled, drainIfIdle),
  };
}
