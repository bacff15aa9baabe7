import { ignore } from '../internal/ignore.js';

/** What `AbortRace.race` resolves to when the signal won. */
export const ABORTED: unique symbol = Symbol('aborted');
export type Aborted = typeof ABORTED;

/**
 * What one physical request races: runTurn's own stop (TurnState), which
 * calls its listeners itself, so a request costs no EventTarget listener:
 * Node 20's event_target code runs unoptimised for the first few hundred
 * requests, on every request's path to its first byte (decision 0212).
 */
export interface StopSource {
  /** Aborts with the stop; it is what the fetch gets. */
  readonly signal: AbortSignal;
  /** Calls `listener` once when the source stops (at once if it has). */
  onStop(listener: () => void): void;
  /** `listener` is not called any more. No unsubscribe closure per request: each was held for its stream (issue 19). */
  offStop(listener: () => void): void;
}

/** Who `AbortRace.watch` tells of the stop. */
export interface AbortWatcher {
  onRaceAborted(): void;
}

interface PendingRace {
  settle(value: Aborted): void;
  promise: Promise<unknown>;
}

/**
 * Races the awaits of one physical request against its stop source. A decoder or a
 * custom fetch may ignore the signal, so every await on the wire is raced
 * (R1.6: an abort ends an in-flight request at once). One subscription per
 * request, not one per await: on Node 20 an `addEventListener` /
 * `removeEventListener` pair per event was the largest single cost of
 * runTurn's per-event hand-off (bench/README.md, gateway section, 2026-11-29
 * decision 0180). Call `release()` once the request is done.
 */
export class AbortRace {
  /** The races in flight; dropped once empty: a request races only its fetch, then its stream is watched (issue 19). */
  private pending: Set<PendingRace> | undefined;
  /** Listening to the source (`onAbort`) until `release()`. */
  private subscribed = false;
  /** Set by our own listener: cheaper than Node 20's `signal.aborted` getter on every await. */
  private fired = false;
  /** The segment reader's one hook (`watch`): its awaits are not raced one by one. */
  private watcher: AbortWatcher | undefined;
  private readonly onAbort = (): void => {
    this.fired = true;
    const watcher = this.watcher;
    this.watcher = undefined;
    watcher?.onRaceAborted();
    const pending = this.pending;
    this.pending = undefined;
    if (pending !== undefined) {
      for (const entry of pending) {
        entry.promise.catch(ignore);
        entry.settle(ABORTED);
      }
    }
  };

  readonly signal: AbortSignal;

  constructor(private readonly source: StopSource) {
    this.signal = source.signal;
  }

  /** `promise`'s value, or `ABORTED` as soon as the signal aborts; a rejection after the abort also reads as `ABORTED`. */
  race<T>(promise: Promise<T>): Promise<T | Aborted> {
    const { signal } = this;
    if (this.subscribed ? this.fired : signal.aborted) {
      promise.catch(ignore);
      return Promise.resolve(ABORTED);
    }
    this.subscribe();
    // A source that had already stopped called back at once.
    if (this.fired) {
      promise.catch(ignore);
      return Promise.resolve(ABORTED);
    }
    return new Promise<T | Aborted>((resolve, reject) => {
      const entry: PendingRace = { settle: resolve, promise };
      (this.pending ??= new Set()).add(entry);
      promise.then(
        (value) => {
          this.forget(entry);
          resolve(value);
        },
        (error: unknown) => {
          this.forget(entry);
          if (this.fired || signal.aborted) resolve(ABORTED);
          else reject(error);
        },
      );
    });
  }

  private forget(entry: PendingRace): void {
    const { pending } = this;
    if (pending === undefined) return;
    pending.delete(entry);
    if (pending.size === 0) this.pending = undefined;
  }

  /** Whether the stop has fired (a flag read, once subscribed). */
  get aborted(): boolean {
    return this.subscribed ? this.fired : this.signal.aborted;
  }

  /**
   * Calls `watcher.onRaceAborted()` once when the stop fires — at once if it
   * already has. One slot, for the segment's pull loop: it checks `aborted`
   * after each await instead of racing it, so an event costs no Promise and no
   * Set entry (issue 19: `race` was ≈ 280 ms of a 1.43 s runTurn profile). An
   * object with a method, not a closure the open stream would hold.
   */
  watch(watcher: AbortWatcher): void {
    if (this.aborted) {
      watcher.onRaceAborted();
      return;
    }
    this.watcher = watcher;
    this.subscribe();
  }

  private subscribe(): void {
    if (this.subscribed) return;
    this.subscribed = true;
    this.source.onStop(this.onAbort);
  }

  /** Drops the subscription (the request is over). */
  release(): void {
    if (!this.subscribed) return;
    this.subscribed = false;
    this.watcher = undefined;
    this.source.offStop(this.onAbort);
  }
}
