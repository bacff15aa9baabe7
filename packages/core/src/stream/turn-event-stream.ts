import type { DecodedStreamEvent, TurnEvent } from '../types/turn-event.js';
import type { SegmentFacts } from './segment-facts.js';
import { SegmentReader, type ReadSegmentOptions } from './segment-reader.js';

/** Thrown into the producer when the host stopped iterating (`return()` / `break`). */
export class ConsumerStoppedError extends Error {
  constructor() {
    super('The consumer stopped iterating.');
    this.name = 'ConsumerStoppedError';
  }
}

export type TurnStep = IteratorResult<TurnEvent, undefined>;

/** Who runs the turn behind the stream. */
export interface TurnEventSource {
  /** Starts the turn (on the host's first pull); settles once it has ended and recorded itself (R6.2). Called once. */
  start(): Promise<unknown>;
  /** The host stopped iterating early: the turn stops (R1.6). */
  stopByConsumer(): void;
}

/** An event queued for the host, and who waits for the host to consume it. */
interface Queued {
  event: TurnEvent;
  consumer: Consumer | undefined;
}

/** Told when the host took an event and pulled again (it consumed it), or stopped instead. */
interface Consumer {
  noteConsumed(): void;
  stopByConsumer(error: Error): void;
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * The host's iterator over one turn's events: a plain async iterator, and
 * the one place where the turn's code and the host meet.
 *
 * The turn's side (async code, turn/):
 * - `post(event)` queues a notice (retry, heartbeat, warning, usage, the final event);
 * - `deliver(event)` queues an event and resolves once the host took it and
 *   pulled again (rejects with ConsumerStoppedError if it stopped instead);
 * - `readSegment(events, options)` hands a segment's decoded events to the
 *   host, one per pull, and resolves with the segment's facts when it ended;
 * - `end()`: nothing follows; the host gets `done` once the queue is drained.
 *
 * The host's side is `next()` / `return()`. An event counts as consumed only
 * when the host pulls again, so the turn never reads ahead of the host
 * (R4.1). The per-event path — a pull answered from the decoder's current
 * batch — runs synchronously inside `next()`: an async generator between the
 * decoder and the host costs several promise hops per event, about as much
 * again as decoding it (`node bench/decode/turn-memory-run.mjs --baseline-ref <a tree with one>`).
 */
export class TurnEventStream implements AsyncIterableIterator<TurnEvent> {
  readonly #source: TurnEventSource;
  /** Notices and deliveries, ahead of the segment's next event. */
  readonly #queue: Queued[] = [];
  #segment: SegmentReader | undefined;
  /** Who hears that the event the host holds was consumed, once it pulls again. */
  #taken: Consumer | undefined;
  /** The host's pull waiting for an event, and its promise (a later pull is served after it). */
  #waiter: ((step: TurnStep | Promise<TurnStep>) => void) | undefined;
  #waiting: Promise<TurnStep> | undefined;
  #started: Promise<unknown> | undefined;
  /** The turn said nothing follows. */
  #ended = false;
  /** The host has seen the end, or stopped: later pulls are done at once. */
  #done = false;
  #stopped = false;

  constructor(source: TurnEventSource) {
    this.#source = source;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<TurnStep> {
    if (this.#waiting !== undefined) return this.#nextAfter(this.#waiting);
    if (this.#done) return Promise.resolve(DONE);
    if (this.#started === undefined) this.#start();
    const taken = this.#taken;
    if (taken !== undefined) {
      this.#taken = undefined;
      taken.noteConsumed();
    }
    const event = this.#eventAtHand();
    // The step is made here, where it is resolved: `Promise.resolve` looks up `then` on what it is
    // given, which costs little for an object it can see made (`node bench/decode/turn-memory-run.mjs`).
    if (event !== undefined) return Promise.resolve({ done: false, value: event });
    return this.#ended ? this.#finish() : this.#wait();
  }

  /**
   * Stopped early (`break`, or before the first pull): the in-flight request
   * is aborted (or none is made), and this resolves once the turn has
   * recorded itself, so `recordTurn` has run exactly once by then (R6.2).
   */
  async return(): Promise<TurnStep> {
    if (this.#done) return DONE;
    this.#done = true;
    this.#stopped = true;
    const error = new ConsumerStoppedError();
    const consumers = [this.#taken, ...this.#queue.map((queued) => queued.consumer)];
    this.#taken = undefined;
    this.#queue.length = 0;
    for (const consumer of consumers) consumer?.stopByConsumer(error);
    this.#segment?.stopByConsumer(error);
    this.#source.stopByConsumer();
    const started = this.#start();
    this.#settleWaiter(started.then(() => DONE));
    await started;
    return DONE;
  }

  /** Queue an event nobody waits for (a notice). */
  post(event: TurnEvent): void {
    if (this.#stopped || this.#ended) return;
    this.#queue.push({ event, consumer: undefined });
    this.#wake();
  }

  /** Queue an event and wait until the host consumed it. Rejects with ConsumerStoppedError. */
  deliver(event: TurnEvent): Promise<void> {
    if (this.#stopped) return Promise.reject(new ConsumerStoppedError());
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ event, consumer: { noteConsumed: resolve, stopByConsumer: reject } });
      this.#wake();
    });
  }

  /**
   * Hands one segment's events to the host (SegmentReader); resolves with
   * the segment's facts when it ended, rejects with what a read threw.
   */
  readSegment(events: AsyncIterable<DecodedStreamEvent>, options: ReadSegmentOptions): Promise<SegmentFacts> {
    const segment = new SegmentReader(events, options, this.#wake);
    if (this.#stopped) segment.stopByConsumer(new ConsumerStoppedError());
    else this.#segment = segment;
    this.#wake();
    return segment.finished;
  }

  /** The turn has ended: no event follows. */
  end(): void {
    this.#ended = true;
    this.#wake();
  }

  /**
   * A next() before the previous one settled is served after it, in order
   * (as a generator queues it). A method of its own: a closure written in
   * `next()` would make every pull allocate its context (40 bytes per event,
   * `node bench/decode/turn-allocation.mjs`).
   */
  #nextAfter(waiting: Promise<TurnStep>): Promise<TurnStep> {
    return waiting.then(() => this.next());
  }

  #start(): Promise<unknown> {
    this.#started ??= this.#source.start();
    return this.#started;
  }

  /** The host's next event from what is at hand; undefined when it must wait, or nothing follows. */
  #eventAtHand(): TurnEvent | undefined {
    const segment = this.#segment;
    if (this.#queue.length === 0 && segment !== undefined) {
      const event = segment.next();
      // Only the segment's first content waits for the host's next pull (R4.1); `#taken` is clear here.
      const consumer = segment.handedContent ? segment : undefined;
      if (event !== undefined && this.#queue.length === 0) {
        if (consumer !== undefined) this.#taken = consumer;
        return event;
      }
      // A notice the segment raised while reading (a warning, its metadata) goes before its event.
      if (event !== undefined) this.#queue.push({ event, consumer });
      if (segment.ended) this.#segment = undefined;
    }
    const queued = this.#queue.shift();
    if (queued === undefined) return undefined;
    this.#taken = queued.consumer;
    return queued.event;
  }

  /** The turn has ended and every event went out: the host is done. */
  #finish(): Promise<TurnStep> {
    this.#done = true;
    return Promise.resolve(DONE);
  }

  #wait(): Promise<TurnStep> {
    const waiting = new Promise<TurnStep>((resolve) => {
      this.#waiter = resolve;
    });
    this.#waiting = waiting;
    return waiting;
  }

  /** Something arrived (an event, a wire read, the end): a waiting pull gets its step. */
  readonly #wake = (): void => {
    const waiter = this.#waiter;
    if (waiter === undefined) return;
    // Taken off while it steps: a notice the segment posts meanwhile is served by this same step.
    this.#waiter = undefined;
    const event = this.#eventAtHand();
    if (event === undefined && !this.#ended) {
      this.#waiter = waiter;
      return;
    }
    this.#waiting = undefined;
    if (event !== undefined) {
      waiter({ done: false, value: event });
      return;
    }
    this.#done = true;
    waiter(DONE);
  };

  #settleWaiter(step: TurnStep | Promise<TurnStep>): void {
    const waiter = this.#waiter;
    if (waiter === undefined) return;
    this.#waiter = undefined;
    this.#waiting = undefined;
    waiter(step);
  }
}
