/** What `AbortRace.race` resolves to when the signal won. */
export const ABORTED: unique symbol = Symbol('aborted');
export type Aborted = typeof ABORTED;

const ignoreRejection = (): void => undefined;

interface PendingRace {
  settle(value: Aborted): void;
  promise: Promise<unknown>;
}

/**
 * Races the awaits of one physical request against its signal. A decoder or a
 * custom fetch may ignore the signal, so every await on the wire is raced
 * (R1.6: an abort ends an in-flight request at once). One abort listener per
 * request, not one per await: on Node 20 an `addEventListener` /
 * `removeEventListener` pair per event was the largest single cost of
 * runTurn's per-event hand-off (bench/README.md, gateway section, 2026-11-29
 * decision 0180). Call `release()` once the request is done.
 */
export class AbortRace {
  private readonly pending = new Set<PendingRace>();
  private listening = false;
  /** Set by our own listener: cheaper than Node 20's `signal.aborted` getter on every await. */
  private fired = false;
  private readonly onAbort = (): void => {
    this.fired = true;
    for (const entry of this.pending) {
      entry.promise.catch(ignoreRejection);
      entry.settle(ABORTED);
    }
    this.pending.clear();
  };

  constructor(readonly signal: AbortSignal) {}

  /** `promise`'s value, or `ABORTED` as soon as the signal aborts; a rejection after the abort also reads as `ABORTED`. */
  race<T>(promise: Promise<T>): Promise<T | Aborted> {
    const { signal } = this;
    if (this.listening ? this.fired : signal.aborted) {
      promise.catch(ignoreRejection);
      return Promise.resolve(ABORTED);
    }
    if (!this.listening) {
      this.listening = true;
      signal.addEventListener('abort', this.onAbort, { once: true });
    }
    return new Promise<T | Aborted>((resolve, reject) => {
      const entry: PendingRace = { settle: resolve, promise };
      this.pending.add(entry);
      promise.then(
        (value) => {
          this.pending.delete(entry);
          resolve(value);
        },
        (error: unknown) => {
          this.pending.delete(entry);
          if (this.fired || signal.aborted) resolve(ABORTED);
          else reject(error);
        },
      );
    });
  }

  /** Drops the abort listener (the request is over). */
  release(): void {
    if (!this.listening) return;
    this.listening = false;
    this.signal.removeEventListener('abort', this.onAbort);
  }
}
