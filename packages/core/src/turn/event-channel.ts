import type { TurnEvent } from '../types/turn-event.js';

/** Thrown into the producer when the host stopped iterating (`return()` / `break`). */
export class ConsumerStoppedError extends Error {
  constructor() {
    super('The consumer stopped iterating.');
    this.name = 'ConsumerStoppedError';
  }
}

export type TurnStep = IteratorResult<TurnEvent, undefined>;

interface QueuedItem {
  event: TurnEvent;
  /** The host has taken the event and asked for the next one. */
  ack(): void;
  reject(error: Error): void;
}

const ignore = (): void => undefined;

/**
 * A rendezvous between runTurn (producer) and the host's iterator. `deliver`
 * resolves only once the host has taken the event and pulled again, so the
 * producer never reads ahead of the host: "output reached the host" means
 * events the host consumed, not bytes the socket received (issue 4 row 15).
 * `pull` is the host's `next()` itself — no async generator between the two,
 * whose await/yield hops cost several microtasks per event (decision 0180).
 */
export class EventChannel {
  private readonly queue: QueuedItem[] = [];
  private waiter: ((step: TurnStep | Promise<TurnStep>) => void) | undefined;
  /** The pull the waiter settles; set exactly while `waiter` is. */
  private waiting: Promise<TurnStep> | undefined;
  /** Taken by the host but not yet acknowledged (the host holds one event at a time). */
  private taken: QueuedItem | undefined;
  private closed = false;
  private stopped = false;

  /** `finish` gives the host's last step once the queue is drained after `close()`. */
  constructor(private readonly finish: () => Promise<TurnStep>) {}

  /** Queue an event and wait until the host consumed it. Rejects with ConsumerStoppedError. */
  deliver(event: TurnEvent): Promise<void> {
    if (this.stopped) return Promise.reject(new ConsumerStoppedError());
    if (this.closed) throw new Error('deliver() after close()');
    return new Promise<void>((resolve, reject) => {
      this.push({ event, ack: resolve, reject });
    });
  }

  /** Queue an event without waiting (retry/heartbeat notices emitted from a sync callback). */
  post(event: TurnEvent): void {
    if (this.stopped || this.closed) return;
    this.push({ event, ack: ignore, reject: ignore });
  }

  /**
   * The host's `next()`: acknowledges the event it took before (it pulled
   * again, so that one was consumed), then hands over the next one, or
   * `finish()` once the producer closed and the queue is empty.
   */
  pull(): Promise<TurnStep> {
    // The async iterator protocol allows a next() before the previous one
    // settled: it is served after that one, in order (as a generator queues it).
    if (this.waiting !== undefined) return this.waiting.then(() => this.pull());
    const taken = this.taken;
    if (taken !== undefined) {
      this.taken = undefined;
      taken.ack();
    }
    const item = this.queue.shift();
    if (item !== undefined) {
      this.taken = item;
      return Promise.resolve({ done: false, value: item.event });
    }
    if (this.closed) return this.finish();
    const waiting = new Promise<TurnStep>((resolve) => {
      this.waiter = resolve;
    });
    this.waiting = waiting;
    return waiting;
  }

  /** The producer has finished: no event follows. */
  close(): void {
    this.closed = true;
    this.wake(this.finish);
  }

  /** The host stopped: every pending and future delivery rejects; a pending pull ends with `finish()`. */
  stopConsumer(): void {
    this.stopped = true;
    const pending = this.queue.splice(0);
    if (this.taken !== undefined) pending.push(this.taken);
    this.taken = undefined;
    for (const item of pending) item.reject(new ConsumerStoppedError());
    this.wake(this.finish);
  }

  private push(item: QueuedItem): void {
    const waiter = this.waiter;
    if (waiter === undefined) {
      this.queue.push(item);
      return;
    }
    this.waiter = undefined;
    this.waiting = undefined;
    this.taken = item;
    waiter({ done: false, value: item.event });
  }

  /** Settles the pending pull, if any, with `step()`. */
  private wake(step: () => TurnStep | Promise<TurnStep>): void {
    const waiter = this.waiter;
    if (waiter === undefined) return;
    this.waiter = undefined;
    this.waiting = undefined;
    waiter(step());
  }
}
