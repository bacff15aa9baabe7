import type { TurnEvent } from '../types/turn-event.js';
import { LazyResultPromise, type RunStarter } from '../internal/lazy-result-promise.js';
import { EventChannel, type ChannelEnd, type TurnStep } from './event-channel.js';
import type { TurnResult, TurnRun } from './turn-result.js';

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * Wraps the turn engine as what the host holds: one async iterator over the
 * events plus `result`. The engine starts on the first pull (or when
 * `result` is awaited). Stopping early (`break` / `return()`) aborts the
 * in-flight request, and `return()` resolves only after the engine has
 * recorded the turn, so `recordTurn` has run exactly once by then (R6.2).
 */
/**
 * What runs the turn. An object with methods, not two closures per turn:
 * the engine's `next()` calls `execute` on its first pull, and an optimised
 * `next()` that had inlined one turn's closure was thrown away when a GC
 * collected it, then re-optimised on the next turn (issue 19).
 */
export interface TurnDriver {
  execute(channel: EventChannel): Promise<TurnResult>;
  /** The host stopped iterating early. */
  stopByConsumer(): void;
}

export function createTurnRun(driver: TurnDriver): TurnRun {
  return new TurnRunHandle(new TurnEngine(driver));
}

/**
 * One turn's engine and the host's iterator over it: a class, not closures
 * made per turn, so the per-event `next()` is one optimised function for
 * every turn. Closures made per turn were re-optimised on every turn after a
 * major GC collected the last one ("weak objects", `--trace-opt`; issue 19).
 */
class TurnEngine implements AsyncIterableIterator<TurnEvent>, RunStarter, ChannelEnd {
  /** Keeps this class's hidden class alive across a full GC between turns (see SegmentReader.shapeAnchor). */
  static readonly shapeAnchor = new TurnEngine({ execute: () => new Promise<TurnResult>(() => undefined), stopByConsumer: () => undefined });
  readonly settled: Promise<TurnResult>;
  readonly #channel: EventChannel;
  #resolveResult!: (result: TurnResult) => void;
  /** The host has seen the end (or stopped): later `next()` calls are done at once. */
  #ended = false;
  #engine: Promise<TurnResult> | undefined;
  #acquired = false;

  constructor(private readonly driver: TurnDriver) {
    this.settled = new Promise<TurnResult>((resolve) => {
      this.#resolveResult = resolve;
    });
    this.#channel = new EventChannel(this);
  }

  /** The iterator the host gets: this engine itself (a plain iterator, not an async generator: decision 0180). */
  acquire(): this {
    this.#acquired = true;
    return this;
  }

  next(): Promise<TurnStep> {
    if (this.#ended) return Promise.resolve(DONE);
    // Only the first pull starts the engine: a call on every pull kept the engine's promise in this
    // optimised path, which a GC then threw away (issue 19).
    if (this.#engine === undefined) this.#start();
    return this.#channel.pull();
  }

  async return(): Promise<TurnStep> {
    if (this.#ended) return DONE;
    // Stopped early — before the first pull too: the in-flight request is
    // aborted (or none is made), and the turn is still recorded once (R6.2).
    this.#ended = true;
    this.#channel.stopConsumer();
    this.driver.stopByConsumer();
    await this.#start();
    return DONE;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** `result` awaited with no iterator taken: the events are drained so the turn still runs to its end. */
  ensureRunning(): void {
    if (this.#acquired) return;
    const drained = this.acquire();
    void (async () => {
      for await (const _event of drained) {
        // Nobody is watching the events; the turn still runs to its end.
      }
    })();
  }

  /** The channel's end: the host's last step waits for the engine (R6.2). */
  lastStep(): Promise<TurnStep> {
    this.#ended = true;
    return this.#start().then(() => DONE);
  }

  #start(): Promise<TurnResult> {
    this.#engine ??= this.driver.execute(this.#channel).then((result) => {
      this.#channel.close();
      this.#resolveResult(result);
      return result;
    });
    return this.#engine;
  }
}

/**
 * What the host holds. Its `[Symbol.asyncIterator]` is a method, not a
 * closure per turn: the host's `for await` calls it, and an optimised host
 * loop that had inlined one turn's closure was thrown away (and its loop
 * re-optimised) after every major GC (issue 19).
 */
class TurnRunHandle implements TurnRun {
  /** Keeps this class's hidden class alive for the host's loop (`run.result` deoptimised per turn without it; decision 0282). */
  static readonly shapeAnchor = new TurnRunHandle(TurnEngine.shapeAnchor);
  readonly result: Promise<TurnResult>;

  constructor(private readonly engine: TurnEngine) {
    this.result = new LazyResultPromise<TurnResult>(engine.settled, engine);
  }

  [Symbol.asyncIterator](): AsyncIterator<TurnEvent> {
    return this.engine.acquire();
  }
}
