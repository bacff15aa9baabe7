/**
 * A promise that starts its run when awaited: awaiting `run.result` without
 * iterating drains the events so the run still happens (and records its
 * stats). Awaiting it while iterating just waits for the end. Used by
 * runTurn and runAgentLoop alike.
 */
export interface RunStarter {
  /** Starts the run if nothing iterates it yet. */
  ensureRunning(): void;
}

/** `run.result`: a promise that also starts the run when awaited (see RunStarter). */
export class LazyResultPromise<T> implements Promise<T> {
  readonly [Symbol.toStringTag] = 'Promise';
  constructor(private readonly settled: Promise<T>, private readonly starter: RunStarter) {}

  private ensureRunning(): void {
    this.starter.ensureRunning();
  }

  then<A = T, B = never>(
    onFulfilled?: ((value: T) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    this.ensureRunning();
    return this.settled.then(onFulfilled, onRejected);
  }

  catch<B = never>(onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<T | B> {
    return this.then(undefined, onRejected);
  }

  finally(onFinally?: (() => void) | null): Promise<T> {
    this.ensureRunning();
    return this.settled.finally(onFinally);
  }
}
