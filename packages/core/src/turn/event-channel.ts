import type { TurnEvent } from '../types/turn-event.js';

/** Thrown into the producer when the host stopped iterating (`return()` / `break`). */
export class ConsumerStoppedError extends Error {
  constructor() {
    super('The consumer stopped iterating.');
    this.name = 'ConsumerStoppedError';
  }
}

export type TurnStep = IteratorResult<TurnEvent, undefined>;

/** Who waits for the host to consume an event: told when the host pulled again, or stopped. */
export interface HandOverListener {
  /**
   * The host took the event and pulled again (called inside that pull).
   * Returns the listener's next event when it has one at hand: it goes to
   * the host with this very pull, with this listener, as `handOver` would
   * send it. Undefined when the next event comes later through `handOver`
   * (or none comes).
   */
  resume(): TurnEvent | undefined;
  /** The host stopped iterating instead (ConsumerStoppedError). */
  stop(error: Error): void;
}

/** Gives the host's last step once the producer closed and the queue is drained. */
export interface ChannelEnd {
  lastStep(): Promise<TurnStep>;
}

/**
 * A rendezvous between runTurn (producer) and the host's iterator. An event
 * is acknowledged only once the host has taken it and pulled again, so the
 * producer never reads ahead of the host: "output reached the host" means
 * events the host consumed, not bytes the socket received (issue 4 row 15).
 * `pull` is the host's `next()` itself — no async generator between the two,
 * whose await/yield hops cost several microtasks per event (decision 0180) —
 * and the acknowledgement runs inside it, so a producer with its next event
 * at hand returns it from that call (issue 19). Queued events and their
 * listeners are kept side by side: no object per event.
 */
export class EventChannel {
  /** Keeps this class's hidden class alive across a full GC between turns (see SegmentReader.shapeAnchor). */
  static readonly shapeAnchor = new EventChannel({ lastStep: () => Promise.resolve({ done: true, value: undefined }) });
  /**
   * The next event to hand over and its listener when it is the only one
   * queued — the per-event case: the reader hands one event over at a time.
   * Two fields, not a push and a shift on two arrays per event (issue 19).
   */
  private nextEvent: TurnEvent | undefined;
  private nextListener: HandOverListener | undefined;
  /** Events queued behind `nextEvent` (a notice posted while one waits), with their listeners. */
  private readonly events: TurnEvent[] = [];
  private readonly listeners: Array<HandOverListener | undefined> = [];
  private waiter: ((step: TurnStep | Promise<TurnStep>) => void) | undefined;
  /** The pull the waiter settles; set exactly while `waiter` is. */
  private waiting: Promise<TurnStep> | undefined;
  /** The listener of the event the host holds (it holds one at a time), until it pulls again; none for a posted one. */
  private taken: HandOverListener | undefined;
  private closed = false;
  private stopped = false;

  /**
   * `end` gives the host's last step once the queue is drained after
   * `close()`: an object with a method, not a closure per turn, since `pull`
   * inlines the call (issue 19).
   */
  constructor(private readonly end: ChannelEnd) {}

  /** Queue an event and wait until the host consumed it. Rejects with ConsumerStoppedError. */
  deliver(event: TurnEvent): Promise<void> {
    return new Promise<void>((resolve, reject) =>
      this.handOver(event, {
        resume: () => {
          resolve();
          return undefined;
        },
        stop: reject,
      }),
    );
  }

  /**
   * Queue an event; `listener.resume` runs once the host took it and pulled
   * again — synchronously, inside that pull — or `listener.stop` with
   * ConsumerStoppedError if the host stopped iterating instead.
   */
  handOver(event: TurnEvent, listener: HandOverListener): void {
    if (this.stopped) {
      listener.stop(new ConsumerStoppedError());
      return;
    }
    if (this.closed) throw new Error('handOver() after close()');
    this.push(event, listener);
  }

  /** Queue an event without waiting (retry/heartbeat notices emitted from a sync callback). */
  post(event: TurnEvent): void {
    if (this.stopped || this.closed) return;
    this.push(event, undefined);
  }

  /**
   * The host's `next()`: acknowledges the event it took before (it pulled
   * again, so that one was consumed), then hands over the next one, or
   * the end's last step once the producer closed and the queue is empty.
   * No closure in here: a closure over `this` anywhere in a function makes
   * V8 allocate a context for `this` on every call, whichever branch runs
   * (40 bytes per event, `--print-opt-code`; issue 19). The rare branches
   * that need one are methods of their own.
   */
  pull(): Promise<TurnStep> {
    // The async iterator protocol allows a next() before the previous one
    // settled: it is served after that one, in order (as a generator queues it).
    if (this.waiting !== undefined) return this.pullAfter(this.waiting);
    const taken = this.taken;
    if (taken !== undefined) {
      this.taken = undefined;
      // A posted event has no listener, not a no-op one: this call site then only ever sees the
      // reader's `resume`, so TurboFan inlines it here (issue 19).
      const direct = taken.resume();
      if (direct !== undefined) {
        // The producer's next event, at hand: straight back with this pull —
        // no queue slot and no second call per event (issue 19) — unless
        // events queued before it must go first. (`taken` is never set once
        // the host stopped; after close, handOver refuses it.)
        if (this.nextEvent === undefined && this.events.length === 0 && !this.closed) {
          this.taken = taken;
          return Promise.resolve({ done: false, value: direct });
        }
        this.handOver(direct, taken);
      }
    }
    const next = this.nextEvent;
    if (next !== undefined) {
      this.taken = this.nextListener;
      this.nextEvent = undefined;
      this.nextListener = undefined;
      return Promise.resolve({ done: false, value: next });
    }
    if (this.events.length > 0) {
      this.taken = this.listeners.shift();
      return Promise.resolve({ done: false, value: this.events.shift()! });
    }
    if (this.closed) return this.end.lastStep();
    return this.waitForEvent();
  }

  /** A pull behind one still waiting, served once that one settled. */
  private pullAfter(waiting: Promise<TurnStep>): Promise<TurnStep> {
    return waiting.then(() => this.pull());
  }

  /** The host's pull, pending until the producer queues an event or closes. */
  private waitForEvent(): Promise<TurnStep> {
    const waiting = new Promise<TurnStep>((resolve) => {
      this.waiter = resolve;
    });
    this.waiting = waiting;
    return waiting;
  }

  /** The producer has finished: no event follows. */
  close(): void {
    this.closed = true;
    this.wakeWithLastStep();
  }

  /** The host stopped: every pending and future delivery rejects; a pending pull ends with the last step. */
  stopConsumer(): void {
    this.stopped = true;
    const pending = [this.nextListener, ...this.listeners.splice(0), this.taken];
    this.nextEvent = undefined;
    this.nextListener = undefined;
    this.events.length = 0;
    this.taken = undefined;
    for (const listener of pending) listener?.stop(new ConsumerStoppedError());
    this.wakeWithLastStep();
  }

  /** `listener` undefined: a posted event, nobody waits for it. */
  private push(event: TurnEvent, listener: HandOverListener | undefined): void {
    const waiter = this.waiter;
    if (waiter === undefined) {
      // Behind `nextEvent` or the queue, never ahead of them: the host gets events in order.
      if (this.nextEvent === undefined && this.events.length === 0) {
        this.nextEvent = event;
        this.nextListener = listener;
      } else {
        this.events.push(event);
        this.listeners.push(listener);
      }
      return;
    }
    this.waiter = undefined;
    this.waiting = undefined;
    this.taken = listener;
    waiter({ done: false, value: event });
  }

  /** Settles the pending pull, if any, with the end's last step. */
  private wakeWithLastStep(): void {
    const waiter = this.waiter;
    if (waiter === undefined) return;
    this.waiter = undefined;
    this.waiting = undefined;
    waiter(this.end.lastStep());
  }
}
