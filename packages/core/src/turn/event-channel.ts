import type { TurnEvent } from '../types/turn-event.js';

/** Thrown into the producer when the host stopped iterating (`return()` / `break`). */
export class ConsumerStoppedError extends Error {
  constructor() {
    super('The consumer stopped iterating.');
    this.name = 'ConsumerStoppedError';
  }
}

export interface ChannelItem {
  event: TurnEvent;
  /** The host has taken the event and asked for the next one. */
  ack(): void;
}

interface QueuedItem extends ChannelItem {
  reject(error: Error): void;
}

/**
 * A rendezvous between runTurn (producer) and the host's iterator. `deliver`
 * resolves only once the host has taken the event and pulled again, so the
 * producer never reads ahead of the host: "output reached the host" means
 * events the host consumed, not bytes the socket received (issue 4 row 15).
 */
export class EventChannel {
  private readonly queue: QueuedItem[] = [];
  private waiter: ((item: QueuedItem | undefined) => void) | undefined;
  private closed = false;
  private stopped = false;
  /** Taken by the host but not yet acknowledged. */
  private readonly taken = new Set<QueuedItem>();

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
    this.push({ event, ack: () => undefined, reject: () => undefined });
  }

  get consumerStopped(): boolean {
    return this.stopped;
  }

  /** Next event for the host; `undefined` once the producer closed and the queue is empty. */
  take(): Promise<ChannelItem | undefined> {
    const item = this.queue.shift();
    if (item) return Promise.resolve(this.track(item));
    if (this.closed) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.waiter = (next) => resolve(next === undefined ? undefined : this.track(next));
    });
  }

  /** The producer has finished: no event follows. */
  close(): void {
    this.closed = true;
    this.wake(undefined);
  }

  /** The host stopped: every pending and future delivery rejects. */
  stopConsumer(): void {
    this.stopped = true;
    for (const item of [...this.queue.splice(0), ...this.taken]) item.reject(new ConsumerStoppedError());
    this.taken.clear();
  }

  private track(item: QueuedItem): ChannelItem {
    this.taken.add(item);
    return {
      event: item.event,
      ack: () => {
        this.taken.delete(item);
        item.ack();
      },
    };
  }

  private push(item: QueuedItem): void {
    if (this.waiter) this.wake(item);
    else this.queue.push(item);
  }

  private wake(item: QueuedItem | undefined): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.(item);
  }
}
