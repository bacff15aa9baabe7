import type { DecodedStreamEvent, TurnEvent } from '../types/turn-event.js';
import {
  createFacts,
  isContent,
  isContentBlockStart,
  noteTextDelta,
  withBlockPrefix,
  type SegmentEnd,
  type SegmentFacts,
} from './segment-facts.js';
import type { EventChannel, HandOverListener } from './event-channel.js';
import type { AbortRace, AbortWatcher } from './race-abort.js';
import { HeldOutput } from './held-output.js';
import { ReasoningText } from './reasoning-text.js';
import {
  IDLE_END_LISTENER,
  IDLE_READER_OPTIONS,
  type BufferedEvents,
  type ReadSegmentOptions,
  type SegmentEndListener,
  type SegmentNotices,
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

class SegmentReader implements HandOverListener, AbortWatcher {
  /**
   * One idle reader (and its facts object) held for the life of the module,
   * so their hidden classes — and the optimised per-event code built on them —
   * survive a full GC between turns. Without it every turn after a major GC
   * re-optimised `take`/`resume` and was deoptimised again ("code
   * dependencies", `--trace-deopt`): about twice the steady-state cost of a
   * 20 000-chunk turn (issue 19, decision 0271; the decoders do the same, 0202).
   */
  static readonly shapeAnchor = new SegmentReader(IDLE_READER_OPTIONS, IDLE_END_LISTENER);
  private readonly facts = createFacts();
  private readonly iterator: AsyncIterator<DecodedStreamEvent> & BufferedEvents;
  // The options' fields, copied: the per-event methods read only this class's
  // fields. The options object is a per-segment literal whose hidden class
  // dies with the turn; optimised code that loaded fields through it was
  // deoptimised after every full GC between turns ("weak objects", issue 19).
  private readonly race: AbortRace;
  private readonly channel: Pick<EventChannel, 'handOver'>;
  private readonly notices: SegmentNotices;
  private readonly now: () => number;
  private readonly forwardToolCalls: boolean;
  private readonly blockIdPrefix: string;
  /** The segment ended (its listener was told): nothing may change `facts` any more. */
  private settled = false;
  /** The response id and block starts held back until the first content (R1.1, R4.1, R8.2). */
  private readonly held = new HeldOutput();
  /** The event handed over last is content: once the host pulled again, output was consumed (R4.1). */
  private handedContent = false;
  /** The terminal frame arrived: the segment ends complete once the released events went out. */
  private completeWhenSent = false;
  /** Becomes `facts.reasoningText` when the segment ends. */
  private readonly reasoning: ReasoningText;
  /**
   * When the decoder's current batch came off the wire: the output time of
   * every content event in it (R5.4: time to first output, decode window). One
   * clock read per wire read, not per event: `Date.now()` costs 65–80 ns
   * here, as much as the rest of the per-event path (issue 19, decision 0284).
   * A double from the start, as `Date.now()` is: a Smi here would let the
   * first real read generalise the field and give every turn's readers a
   * hidden class the idle shapeAnchor does not share.
   */
  private batchReadAt = Number.NaN;
  /**
   * The current batch's output time is in the facts. A flag, not
   * `facts.lastOutputAt !== batchReadAt`: that field starts `undefined`, so
   * the comparison was generic and boxed the double into a new heap number
   * on every event (16 bytes and a builtin call per event, `--print-opt-code`;
   * issue 19).
   */
  private batchTimeNoted = false;

  constructor(
    options: ReadSegmentOptions,
    private readonly ended: SegmentEndListener,
  ) {
    this.iterator = options.events[Symbol.asyncIterator]();
    this.race = options.race;
    this.channel = options.channel;
    this.notices = options.notices;
    this.now = options.now;
    this.forwardToolCalls = options.forwardToolCalls;
    this.blockIdPrefix = options.blockIdPrefix;
    this.reasoning = new ReasoningText(options.keepReasoning, options.reasoningMaxChars);
  }

  start(): void {
    // A decoder may hold events before its first read; they count as output from now.
    this.noteBatchRead();
    this.race.watch(this);
    this.sendNext();
  }

  /** A new batch came off the wire (or the segment starts): its content is output from now. */
  private noteBatchRead(): void {
    this.batchReadAt = this.now();
    this.batchTimeNoted = false;
  }

  /** The request's stop fired (R1.6): the segment ends at once, whatever it awaits. */
  onRaceAborted(): void {
    this.end('aborted');
  }

  /** Settles the segment once; every end but a plain EOF or a read failure closes the decoder. */
  private end(how: SegmentEnd): void {
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

  private closeIterator(): void {
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
   * own per event.
   */
  private nextForHost(): TurnEvent | undefined {
    try {
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

  /** `event` is the host's next: whether it is content decides what its pull acknowledges (R4.1). */
  private handOut(event: TurnEvent, content: boolean): TurnEvent {
    this.handedContent = content;
    return withBlockPrefix(event, this.blockIdPrefix);
  }

  /**
   * The host took the handed event and pulled again: the next event, when
   * the batch has it, goes back with this pull (the channel hands it over
   * with no queueing of its own, issue 19).
   */
  resume(): TurnEvent | undefined {
    if (this.settled) return undefined;
    if (this.handedContent) this.facts.outputConsumed = true;
    return this.nextForHost();
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

  /** Records one decoded event in the facts; returns it (as the host gets it) when it goes to the host now. */
  private take(event: DecodedStreamEvent): TurnEvent | undefined {
    const { facts } = this;
    // One read of `type` per event, content events first: across a dozen event
    // shapes each read is a megamorphic load. A second switch for the output
    // events cost up to 3 % of runTurn's time (bench/decode/turn-memory-run.mjs, issue 19).
    switch (event.type) {
      case 'text-delta':
        return this.takeOutput(event, noteTextDelta(this.facts, event.delta));
      case 'reasoning-delta':
        this.reasoning.add(event.delta);
        return this.takeOutput(event, event.delta !== '');
      case 'tool-call-start':
      case 'tool-call-delta':
      case 'tool-call-end':
        facts.toolCallProduced = true;
        if (this.forwardToolCalls) return this.takeOutput(event, true);
        // R4.5: the recovery segment's tool calls count as its output but never reach the host.
        this.noteOutputTime();
        return undefined;
      case 'reasoning-start':
        return this.takeOutput(event, isContentBlockStart(event));
      case 'text-start':
      case 'text-end':
      case 'reasoning-end':
        return this.takeOutput(event, false);
      case 'stream-end':
        facts.terminalFrameSeen = event.terminalFrameSeen;
        // R4.1: a tool call no event could show (no id/name yet, a server tool) still rules out recovery.
        if (event.toolCallSeen === true) facts.toolCallProduced = true;
        if (event.terminalFrameSeen) {
          this.completeAfterHeld();
          return undefined;
        }
        // The decoder's last item: closing lets a generator run its cleanup.
        this.closeIterator();
        this.end('eof');
        return undefined;
      case 'usage':
        facts.usage = event.usage;
        return undefined;
      case 'finish':
        facts.finishReason = event.finishReason;
        return undefined;
      case 'error':
        // R8.12: after the terminal frame the response is complete; a bad record behind it changes nothing.
        if (facts.finishReason !== undefined) {
          this.completeAfterHeld();
          return undefined;
        }
        facts.streamError = event.error;
        this.end('stream-error');
        return undefined;
      case 'warning':
        this.notices.addWarning(event.message);
        return undefined;
      case 'response-metadata':
        facts.responseId ??= event.responseId;
        if (facts.outputConsumed) this.notices.noteMetadata(event);
        else this.held.holdMetadata(event);
        return undefined;
      case 'retry':
      case 'heartbeat':
      case 'recovery-start':
      case 'tombstone':
        // Lifecycle events belong to runTurn, not to a decoder.
        return undefined;
      default: {
        // An event type this version does not know: skipped, never treated as output.
        const _exhaustive: never = event;
        void _exhaustive;
        return undefined;
      }
    }
  }

  /** A content or block event (R4.1: content is what makes a retry visible): to the host, or held until content. */
  private takeOutput(event: TurnEvent, content: boolean): TurnEvent | undefined {
    if (content) this.noteOutputTime();
    if (!this.facts.outputConsumed) {
      if (!content) {
        this.held.hold(event);
        return undefined;
      }
      if (this.held.release(this.notices)) {
        // The held block starts go first; this event follows them.
        this.held.queueAfterReleased(event);
        return undefined;
      }
    }
    return this.handOut(event, content);
  }

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

  /** The terminal frame arrived: what was held for the host goes out, then the segment ends complete. */
  private completeAfterHeld(): void {
    this.facts.terminalFrameSeen = true;
    this.held.release(this.notices);
    this.completeWhenSent = true;
  }

  /**
   * A content event of the current batch: the batch's read time is its
   * output time (R5.4). Written once per batch (`batchTimeNoted`): a double
   * stored into these fields is a new heap number each time.
   */
  private noteOutputTime(): void {
    if (this.batchTimeNoted) return;
    this.batchTimeNoted = true;
    this.facts.firstOutputAt ??= this.batchReadAt;
    this.facts.lastOutputAt = this.batchReadAt;
  }
}
