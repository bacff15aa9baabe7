import type { DecodedStreamEvent, TurnEvent } from '../types/turn-event.js';
import { createFacts, isContentBlockStart, noteTextDelta, withBlockPrefix, type SegmentEnd } from './segment-facts.js';
import { HeldOutput } from './held-output.js';
import { ReasoningText } from './reasoning-text.js';
import type { ReadSegmentOptions, SegmentNotices } from './read-segment-options.js';

/** The events that may pass straight through to the host (see `passesThrough`). */
type DeltaEvent = Extract<DecodedStreamEvent, { type: 'text-delta' | 'reasoning-delta' | 'tool-call-delta' }>;

/**
 * What each decoded event of a segment tells: the facts the recovery
 * decision needs (R4), what is held until the first content (R8.2), and the
 * form an event reaches the host in. SegmentReader (read-segment.ts) pulls
 * the events off the wire and ends the segment; one object, split in two
 * files by concern.
 */
export abstract class SegmentRecorder {
  protected readonly facts = createFacts();
  // The options' fields, copied: the per-event methods read only this object's
  // fields. The options object is a per-segment literal whose hidden class
  // dies with the turn; optimised code that loaded fields through it was
  // deoptimised after every full GC between turns ("weak objects", issue 19).
  protected readonly notices: SegmentNotices;
  protected readonly now: () => number;
  protected readonly forwardToolCalls: boolean;
  protected readonly blockIdPrefix: string;
  /** The response id and block starts held back until the first content (R1.1, R4.1, R8.2). */
  protected readonly held = new HeldOutput();
  /** The event handed over last is content: once the host pulled again, output was consumed (R4.1). */
  protected handedContent = false;
  /** The terminal frame arrived: the segment ends complete once the released events went out. */
  protected completeWhenSent = false;
  /** Becomes `facts.reasoningText` when the segment ends. */
  protected readonly reasoning: ReasoningText;
  /**
   * When the decoder's current batch came off the wire: the output time of
   * every content event in it (R5.4: time to first output, decode window). One
   * clock read per wire read, not per event: `Date.now()` costs 65–80 ns
   * here, as much as the rest of the per-event path (issue 19, decision 0284).
   * A double from the start, as `Date.now()` is: a Smi here would let the
   * first real read generalise the field and give every turn's readers a
   * hidden class the idle shapeAnchor does not share.
   */
  protected batchReadAt = Number.NaN;
  /**
   * The current batch's output time is in the facts. A flag, not
   * `facts.lastOutputAt !== batchReadAt`: that field starts `undefined`, so
   * the comparison was generic and boxed the double into a new heap number
   * on every event (16 bytes and a builtin call per event, `--print-opt-code`;
   * issue 19).
   */
  protected batchTimeNoted = false;
  /**
   * The host's next pull may hand a delta straight out: in this state `take`
   * would do no more for it than `passesThrough` does (see
   * `mayPassDeltasThrough`). Nearly every event of a long answer, thinking
   * phase or tool call goes this way; the rest, and the first events of each
   * batch, take the full path (issue 19, decision 0301). Once true it holds
   * until the next batch: of its conditions only the batch's time can change
   * back, and `noteBatchRead` clears it then.
   */
  protected passDeltasThrough = false;

  constructor(options: ReadSegmentOptions) {
    this.notices = options.notices;
    this.now = options.now;
    this.forwardToolCalls = options.forwardToolCalls;
    this.blockIdPrefix = options.blockIdPrefix;
    this.reasoning = new ReasoningText(options.keepReasoning, options.reasoningMaxChars);
  }

  /** Settles the segment once (SegmentReader). */
  protected abstract end(how: SegmentEnd): void;
  /** Lets the decoder go (SegmentReader). */
  protected abstract closeIterator(): void;

  /** A new batch came off the wire (or the segment starts): its content is output from now. */
  protected noteBatchRead(): void {
    this.batchReadAt = this.now();
    this.batchTimeNoted = false;
    this.passDeltasThrough = false;
  }

  /** `event` is the host's next: whether it is content decides what its pull acknowledges (R4.1). */
  protected handOut(event: TurnEvent, content: boolean): TurnEvent {
    this.handedContent = content;
    return withBlockPrefix(event, this.blockIdPrefix);
  }

  /**
   * Whether `take` would hand a delta out as it is, changing no fact but
   * what `passesThrough` does: output already consumed (R4.1), the batch's
   * output time already noted (R5.4), no block prefix to add, tool calls go
   * to the host (R4.5). Once output was consumed nothing is held or released
   * (R8.2: only events before the first content are), `handedContent` no
   * longer matters (it only ever sets `outputConsumed`), and a terminal frame
   * ends the segment before another event goes out (`nextForHost`).
   */
  protected mayPassDeltasThrough(): boolean {
    return this.facts.outputConsumed && this.batchTimeNoted && this.blockIdPrefix === '' && this.forwardToolCalls;
  }

  /**
   * In the pass-through state, a delta whose facts are already recorded goes
   * out as it is (a reasoning delta's text is still kept, R4.3); anything
   * else takes the full path. One read of `type` (a megamorphic load).
   */
  protected passesThrough(event: DecodedStreamEvent): event is DeltaEvent {
    switch (event.type) {
      case 'text-delta':
        // Until non-blank text was seen, `noteTextDelta` still has a fact to record (R4.2).
        return this.facts.nonWhitespaceText;
      case 'reasoning-delta':
        this.reasoning.add(event.delta);
        return true;
      case 'tool-call-delta':
        return this.facts.toolCallProduced;
      default:
        return false;
    }
  }

  /** Records one decoded event in the facts; returns it (as the host gets it) when it goes to the host now. */
  protected take(event: DecodedStreamEvent): TurnEvent | undefined {
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
  protected takeOutput(event: TurnEvent, content: boolean): TurnEvent | undefined {
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

  /** The terminal frame arrived: what was held for the host goes out, then the segment ends complete. */
  protected completeAfterHeld(): void {
    this.facts.terminalFrameSeen = true;
    this.held.release(this.notices);
    this.completeWhenSent = true;
  }

  /**
   * A content event of the current batch: the batch's read time is its
   * output time (R5.4). Written once per batch (`batchTimeNoted`): a double
   * stored into these fields is a new heap number each time.
   */
  protected noteOutputTime(): void {
    if (this.batchTimeNoted) return;
    this.batchTimeNoted = true;
    this.facts.firstOutputAt ??= this.batchReadAt;
    this.facts.lastOutputAt = this.batchReadAt;
  }
}
