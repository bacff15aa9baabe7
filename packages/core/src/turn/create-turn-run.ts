import type { TurnEvent } from '../types/turn-event.js';
import { EventChannel } from './event-channel.js';
import type { TurnResult, TurnRun } from './turn-result.js';

/**
 * A promise that starts the turn when awaited: awaiting `run.result`
 * without iterating drains the events so the turn still runs (and records
 * its stats). Awaiting it while iterating just waits for the end.
 */
class TurnResultPromise implements Promise<TurnResult> {
  readonly [Symbol.toStringTag] = 'Promise';
  constructor(private readonly settled: Promise<TurnResult>, private readonly ensureRunning: () => void) {}

  then<A = TurnResult, B = never>(
    onFulfilled?: ((value: TurnResult) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    this.ensureRunning();
    return this.settled.then(onFulfilled, onRejected);
  }

  catch<B = never>(onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<TurnResult | B> {
    return this.then(undefined, onRejected);
  }

  finally(onFinally?: (() => void) | null): Promise<TurnResult> {
    this.ensureRunning();
    return this.settled.finally(onFinally);
  }
}

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
  const channel = new EventChannel();
  let resolveResult!: (result: TurnResult) => void;
  const settled = new Promise<TurnResult>((resolve) => {
    resolveResult = resolve;
  });
  let engine: Promise<TurnResult> | undefined;
  const startEngine = (): Promise<TurnResult> => {
    engine ??= execute(channel).then((result) => {
      channel.close();
      resolveResult(result);
      return result;
    });
    return engine;
  };

  async function* iterate(): AsyncGenerator<TurnEvent, void, undefined> {
    const done = startEngine();
    let finished = false;
    try {
      for (;;) {
        const item = await channel.take();
        if (item === undefined) {
          finished = true;
          return;
        }
        yield item.event;
        // The host pulled again: the event was consumed.
        item.ack();
      }
    } finally {
      if (!finished) {
        channel.stopConsumer();
        onConsumerStop();
      }
      await done;
    }
  }

  let iterator: AsyncIterableIterator<TurnEvent> | undefined;
  const acquire = (): AsyncIterableIterator<TurnEvent> => {
    if (iterator !== undefined) return iterator;
    const generator = iterate();
    let pulled = false;
    iterator = {
      next: () => {
        pulled = true;
        return generator.next();
      },
      return: async () => {
        if (!pulled) {
          // Stopped before the first pull: the turn ends aborted without a
          // request, and is still recorded once (R6.2).
          pulled = true;
          channel.stopConsumer();
          onConsumerStop();
          await startEngine();
        }
        return generator.return(undefined);
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
    result: new TurnResultPromise(settled, drainIfIdle),
  };
}
