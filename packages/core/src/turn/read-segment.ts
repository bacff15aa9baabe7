import type { DecodedStreamEvent, TurnEvent } from '../types/turn-event.js';
import { isContent, type SegmentEnd } from './segment-facts.js';
import type { EventChannel, HandOverListener } from './event-channel.js';
import type { AbortRace, AbortWatcher } from './race-abort.js';
import { SegmentRecorder } from './segment-recorder.js';
import {
  IDLE_END_LISTENER,
  IDLE_READER_OPTIONS,
  type BufferedEvents,
  type ReadSegmentOptions,
  type SegmentEndListener,
} from './read-segment-options.js';
import { ignore } from '../internal/ignore.js';

export type { SegmentEnd, SegmentFacts } from './segment-facts.js';
export type { ReadSegmentOptions, SegmentEndListener, SegmentNotices } from './read-segment-options.js';

/**
 * Reads one segment's decoded events, hands content to the host one event at
 * a time and records the facts the recovery decision needs; `ended` hears how
 * the segment ended, once. Usage, finish and in-stream errors are kept back:
 * runTurn emits one aggregated usage and one final event per logical turn
 * (seeds/004 "只发出一个逻辑回合的 usage 汇总").
 *
 * A listener, not a promise of its own: runTurn's request settles its attempt
 * from there, so an open stream holds no promise, reaction or suspended frame
 * for the read itself (issue 19, decision 0297).
 *
 * Aborts (R1.6) are one subscription per segment, not a race per await: the
 * stop ends the segment at once — while it waits for the next chunk or for
 * the host to take an event — and the reader, when the read or the host's
 * pull comes back, sees the flag and leaves without touching the facts again
 * (issue 19, decisions 0270 and 0271).
 */
export function readSegment(options: ReadSegmentOptions, ended: SegmentEndListener): void {
  new SegmentReader(options, ended).start();
}

class SegmentReader extends SegmentRecorder implements HandOverListener, AbortWatcher {
  /**
   * One idle reader (and its facts object) held for the life of the module,
   * so their hidden classes — and the optimised per-event code built on them —
   * survive a full GC between turns. Without it every turn after a major GC
   * re-optimised `take`/`resume` and was deoptimised again ("code
   * dependencies", `--trace-deopt`): about twice the steady-state cost of a
   * 20 000-chunk turn (issue 19, decision 0271; the decoders do the same, 0202).
   */
  static readonly shapeAnchor = new SegmentReader(IDLE_READER_OPTIONS, IDLE_END_LISTENER);
  private readonly iterator: AsyncIterator<DecodedStreamEvent> & BufferedEvents;
  // The options' fields, copied, as SegmentRecorder does (see there).
  private readonly race: AbortRace;
  private readonly channel: Pick<EventChannel, 'handOver'>;
  /** The segment ended (its listener was told): nothing may change `facts` any more. */
  private settled = false;

  constructor(
    options: ReadSegmentOptions,
    private readonly ended: SegmentEndListener,
  ) {
    super(options);
    this.iterator = options.events[Symbol.asyncIterator]();
    this.race = options.race;
    this.channel = options.channel;
  }

  start(): void {
    // A decoder may hold events before its first read; they count as output from now.
    this.noteBatchRead();
    this.race.watch(this);
    this.sendNext();
  }

  /** The request's stop fired (R1.6): the segment ends at once, whatever it awaits. */
  onRaceAborted(): void {
    this.end('aborted');
  }

  /** Settles the segment once; every end but a plain EOF or a read failure closes the decoder. */
  protected end(how: SegmentEnd): void {
    if (this.settled) return;
    this.settled = true;
    this.facts.reasoningText = this.reasoning.text();
    this.facts.end = how;
    if (how !== 'eof' && how !== 'transport-error') this.closeIterator();
    this.ended.onSegmentEnd(this.facts);
  }

  private fail(error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    // Nothing reads on: the decoder releases the upstream.
    this.closeIterator();
    this.ended.onSegmentFailed(error);
  }

  protected closeIterator(): void {
    const { iterator } = this;
    void Promise.resolve()
      .then(() => iterator.return?.())
      .catch(ignore);
  }

  /**
   * The per-event path (issue 19): runs synchronously — inside the host's
   * pull, once it took the last event — through the decoder's current batch
   * until it finds the next event for the host, and returns it; undefined
   * once it started a wire read (its event goes out through `sendNext`) or
   * the segment ended. No promise, step object or async resumption of our
   * own per event. `taken`: an event already taken from the batch (one the
   * pass-through did not hand out), recorded first.
   */
  private nextForHost(taken?: DecodedStreamEvent): TurnEvent | undefined {
    try {
      if (taken !== undefined) {
        const next = this.take(taken);
        if (next !== undefined) return next;
      }
      while (!this.settled) {
        if (this.held.hasReleased()) {
          // Held events are block starts; the one released them is content.
          const released = this.held.nextReleased();
          return this.handOut(released, isContent(released));
        }
        if (this.completeWhenSent) {
          this.end('terminal');
          return undefined;
        }
        const event = this.iterator.takeBuffered?.();
        if (event === undefined) {
          this.readWire();
          return undefined;
        }
        const next = this.take(event);
        if (next !== undefined) return next;
      }
    } catch (error) {
      this.fail(error);
    }
    return undefined;
  }

  /** Outside the host's pull (the segment's start, a wire read): the next event goes to the channel. */
  private sendNext(): void {
    const next = this.nextForHost();
    if (next !== undefined) this.channel.handOver(next, this);
  }

  /**
   * The host took the handed event and pulled again: the next event, when
   * the batch has it, goes back with this pull (the channel hands it over
   * with no queueing of its own, issue 19).
   */
  resume(): TurnEvent | undefined {
    if (this.settled) return undefined;
    if (this.passDeltasThrough) return this.passOrTake();
    if (this.handedContent) this.facts.outputConsumed = true;
    const next = this.nextForHost();
    this.passDeltasThrough = next !== undefined && this.mayPassDeltasThrough();
    return next;
  }

  /**
   * The pass-through state (decision 0301): the batch's next delta goes out
   * as it is, anything else through the full path. A decoder that throws
   * here fails the segment as it does on the full path (R6.1, decision 0300).
   */
  private passOrTake(): TurnEvent | undefined {
    let event: DecodedStreamEvent | undefined;
    try {
      event = this.iterator.takeBuffered?.();
      if (event !== undefined && this.passesThrough(event)) return event;
    } catch (error) {
      this.fail(error);
      return undefined;
    }
    return this.nextForHost(event);
  }

  /** The host stopped iterating (ConsumerStoppedError) instead of pulling again. */
  stop(error: Error): void {
    if (this.settled) return;
    this.facts.transportError = error;
    this.end('aborted');
  }

  /**
   * The batch is empty: the decoder's next read, then back to the
   * synchronous path. A `then` with the reader's two bound callbacks, not an
   * async method: an async call per read allocated a generator, its
   * registers and a promise, and its suspended frame was held for the whole
   * wait of every open stream (issue 19).
   */
  private readWire(): void {
    let read: Promise<IteratorResult<DecodedStreamEvent>>;
    try {
      read = this.iterator.next();
    } catch (error) {
      this.onWireFailed(error);
      return;
    }
    read.then(this.onWireRead, this.onWireFailed);
  }

  private readonly onWireRead = (step: IteratorResult<DecodedStreamEvent>): void => {
    if (this.settled) return;
    if (step.done === true) return this.end('eof');
    this.noteBatchRead();
    // Checked once per read, not per event: text or a tool call rules recovery out (R4.2).
    if (this.facts.textProduced || this.facts.toolCallProduced) this.reasoning.drop();
    let next: TurnEvent | undefined;
    try {
      next = this.take(step.value);
    } catch (error) {
      return this.fail(error);
    }
    if (next === undefined) this.sendNext();
    else this.channel.handOver(next, this);
  };

  private readonly onWireFailed = (error: unknown): void => {
    if (!this.settled) this.onReadFailure(error);
  };

  /**
   * R8.12 "complete means complete": a decoder emits `finish` only once the
   * protocol's terminal frame arrived, so a read that fails after it (a
   * chunked body missing its last chunk, FIN/RST, a short content-length, a
   * bad trailer: undici's `TypeError: terminated`) ends a complete segment,
   * never `STREAM_CUT`/`TRANSPORT`, and is never retried.
   */
  private onReadFailure(error: unknown): void {
    const { facts } = this;
    if (this.race.aborted) return this.end('aborted');
    if (facts.finishReason !== undefined) {
      this.completeAfterHeld();
      this.sendNext();
      return;
    }
    facts.transportError = error;
    this.end('transport-error');
  }
}
