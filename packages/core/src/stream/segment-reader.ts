import type { DecodedStreamEvent, TurnEvent } from '../types/turn-event.js';
import { ignore } from '../internal/ignore.js';
import type { SegmentEnd, SegmentFacts } from './segment-facts.js';
import { SegmentRecorder, type SegmentRules } from './segment-recorder.js';

/** The decoder's synchronous read of its current batch (decodeSseStream has it; other iterators may not). */
export interface BufferedEvents {
  takeBuffered?(): DecodedStreamEvent | undefined;
}

export interface ReadSegmentOptions extends SegmentRules {
  /** The request's stop: the segment ends `aborted` at once when it aborts, whatever it awaits (R1.6). */
  signal: AbortSignal;
}

/**
 * Reads one segment's decoded events for the host, one event per host pull,
 * and records what the recovery decision needs (SegmentRecorder). Usage,
 * finish and in-stream errors are kept back: runTurn emits one aggregated
 * usage and one final event per logical turn (R5.2).
 *
 * It never reads ahead of the host: `next()` gives the next event already in
 * the decoder's current batch, and only when the batch is empty does it start
 * the decoder's next wire read, whose arrival it reports to `onProgress`.
 * "Output reached the host" thus means events the host consumed, not bytes
 * the socket received (R4.1).
 */
export class SegmentReader {
  /** Settles once, when the segment ended: with its facts, or with what a read threw (a decoder bug). */
  readonly finished: Promise<SegmentFacts>;
  readonly #recorder: SegmentRecorder;
  readonly #iterator: AsyncIterator<DecodedStreamEvent> & BufferedEvents;
  readonly #signal: AbortSignal;
  readonly #onProgress: () => void;
  #resolve!: (facts: SegmentFacts) => void;
  #reject!: (error: unknown) => void;
  /** The event a wire read brought, not yet taken. */
  #fromRead: DecodedStreamEvent | undefined;
  #reading = false;
  #ended = false;

  constructor(events: AsyncIterable<DecodedStreamEvent>, options: ReadSegmentOptions, onProgress: () => void) {
    this.finished = new Promise<SegmentFacts>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    this.#recorder = new SegmentRecorder(options);
    this.#iterator = events[Symbol.asyncIterator]();
    this.#signal = options.signal;
    this.#onProgress = onProgress;
    // A decoder may hold events before its first read; they count as output from now.
    this.#recorder.noteBatchRead();
    if (this.#signal.aborted) this.#end('aborted', true);
    else this.#signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** The event handed out last is content: the host's next pull consumes output (R4.1). */
  get handedContent(): boolean {
    return this.#recorder.handedContent;
  }

  /** The host took the event handed out last and pulled again. */
  noteConsumed(): void {
    this.#recorder.noteConsumed();
  }

  /**
   * The host's next event from what is at hand; undefined when a wire read
   * is in flight (started here if the batch ran dry) or the segment ended.
   */
  next(): TurnEvent | undefined {
    if (this.#reading || this.#ended) return undefined;
    const recorder = this.#recorder;
    try {
      for (;;) {
        if (recorder.releasing) {
          const released = recorder.nextReleased();
          if (released !== undefined) return released;
          if (recorder.completeWhenSent) return this.#end('terminal', true);
        }
        let event = this.#fromRead;
        if (event === undefined) event = this.#iterator.takeBuffered?.();
        else this.#fromRead = undefined;
        if (event === undefined) return this.#readWire();
        const forHost = recorder.take(event);
        if (forHost !== undefined) return forHost;
        if (recorder.endedBy !== undefined) return this.#end(recorder.endedBy, true);
      }
    } catch (error) {
      this.#fail(error);
      return undefined;
    }
  }

  /** The host stopped iterating instead of pulling again (R1.6). */
  stopByConsumer(error: Error): void {
    if (this.#ended) return;
    this.#recorder.facts.transportError = error;
    this.#end('aborted', true);
  }

  readonly #onAbort = (): void => {
    this.#end('aborted', true);
  };

  #readWire(): undefined {
    this.#reading = true;
    let read: Promise<IteratorResult<DecodedStreamEvent>>;
    try {
      read = this.#iterator.next();
    } catch (error) {
      this.#onWireFailed(error);
      return undefined;
    }
    read.then(this.#onWireRead, this.#onWireFailed);
    return undefined;
  }

  readonly #onWireRead = (step: IteratorResult<DecodedStreamEvent>): void => {
    this.#reading = false;
    if (this.#ended) return;
    if (step.done === true) {
      this.#end('eof', false);
      return;
    }
    this.#recorder.noteBatchRead();
    this.#fromRead = step.value;
    this.#onProgress();
  };

  /**
   * R8.12 "complete means complete": a decoder emits `finish` only once the
   * protocol's terminal frame arrived, so a read that fails after it (a
   * chunked body missing its last chunk, FIN/RST, a short content-length, a
   * bad trailer: undici's `TypeError: terminated`) ends a complete segment,
   * never `STREAM_CUT`/`TRANSPORT`, and is never retried.
   */
  readonly #onWireFailed = (error: unknown): void => {
    this.#reading = false;
    if (this.#ended) return;
    const recorder = this.#recorder;
    if (recorder.facts.finishReason !== undefined) {
      recorder.completeAfterHeld();
      this.#onProgress();
      return;
    }
    recorder.facts.transportError = error;
    this.#end('transport-error', false);
  };

  /** Settles the segment once; `closeIterator` unless the decoder itself ended (its last read was done or failed). */
  #end(how: SegmentEnd, closeIterator: boolean): undefined {
    if (this.#ended) return undefined;
    this.#ended = true;
    this.#signal.removeEventListener('abort', this.#onAbort);
    const { facts, reasoning } = this.#recorder;
    facts.reasoningText = reasoning.text();
    facts.end = how;
    if (closeIterator) this.#closeIterator();
    this.#resolve(facts);
    return undefined;
  }

  /** A decoder that throws, or a bug in the reader: the segment fails; nothing reads on, so the decoder lets the upstream go. */
  #fail(error: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#signal.removeEventListener('abort', this.#onAbort);
    this.#closeIterator();
    this.#reject(error);
  }

  /** A microtask later: the decoder may be inside the call that ended the segment. */
  #closeIterator(): void {
    const iterator = this.#iterator;
    void Promise.resolve()
      .then(() => iterator.return?.())
      .catch(ignore);
  }
}
