import type { DecodedStreamEvent, TurnEvent } from '../types/turn-event.js';
import { createFacts, isContent, isContentBlockStart, noteTextDelta, withBlockPrefix, type MetadataEvent, type SegmentEnd, type SegmentFacts } from './segment-facts.js';
import { HeldOutput } from './held-output.js';
import { ReasoningText } from './reasoning-text.js';

/** What a segment tells the turn besides its events: warnings, and its response metadata (shown once per turn). */
export interface SegmentNotices {
  addWarning(message: string): void;
  noteMetadata(event: MetadataEvent): void;
}

/** How one segment is read: the turn's rules for it. */
export interface SegmentRules {
  now(): number;
  notices: SegmentNotices;
  /** R4.5: the recovery segment's tool calls are never handed to the host. */
  forwardToolCalls: boolean;
  /** Keeps block ids of different segments apart for the host. */
  blockIdPrefix: string;
  /** R4.3: the reasoning text is kept for a recovery checkpoint (false: recovery is off, or this segment is the recovery). */
  keepReasoning: boolean;
  /** R4.7: the checkpoint's limit; reasoning past it is not kept (no recovery can follow). */
  reasoningMaxChars: number;
  /** R11.6: the answer text handed out is kept for a continuation's prefill (only with continuation on). */
  keepText?: boolean;
}

/**
 * What each decoded event of a segment tells: the facts the recovery
 * decision needs (R4), what is held until the first content (R8.2), and the
 * form an event reaches the host in. The SegmentReader pulls the events off
 * the wire and ends the segment.
 */
export class SegmentRecorder {
  readonly facts: SegmentFacts = createFacts();
  /** Becomes `facts.reasoningText` when the segment ends. */
  readonly reasoning: ReasoningText;
  /** The response id and block starts held back until the first content (R1.1, R4.1, R8.2). */
  private readonly held = new HeldOutput();
  /** An event ended the segment: how. */
  endedBy: SegmentEnd | undefined;
  /** The terminal frame arrived: the segment ends complete once the released events went out. */
  completeWhenSent = false;
  /**
   * Released events wait to go out, or the segment is complete once they
   * did: the reader asks `nextReleased()` only then, not on every event.
   */
  releasing = false;
  /**
   * The event handed out last is the segment's first content not yet
   * acknowledged: the host's next pull means output was consumed (R4.1).
   * False once it was: later pulls have nothing left to tell the segment.
   */
  handedContent = false;
  /**
   * When the current batch of events came off the wire: the output time of
   * every content event in it (R5.4: time to first output, decode window).
   * One clock read per wire read, not one per event.
   */
  private batchReadAt = 0;
  /** The current batch's output time is already in the facts. */
  private batchTimeNoted = false;
  private readonly forwardToolCalls: boolean;
  private readonly blockIdPrefix: string;
  private readonly keepText: boolean;

  constructor(private readonly rules: SegmentRules) {
    this.reasoning = new ReasoningText(rules.keepReasoning, rules.reasoningMaxChars);
    this.forwardToolCalls = rules.forwardToolCalls;
    this.blockIdPrefix = rules.blockIdPrefix;
    this.keepText = rules.keepText === true;
  }

  /** A new batch came off the wire (or the segment starts): its content is output from now. */
  noteBatchRead(): void {
    this.batchReadAt = this.rules.now();
    this.batchTimeNoted = false;
    // R4.2: text or a tool call rules recovery out, so the reasoning is let go (checked per read, not per event).
    if (this.facts.textProduced || this.facts.toolCallProduced) this.reasoning.drop();
  }

  /** The host took the content event handed out last and pulled again (R4.1). */
  noteConsumed(): void {
    if (this.handedContent) this.facts.outputConsumed = true;
  }

  /** A held event released by the first content, which goes before anything else; undefined when none is left. */
  nextReleased(): TurnEvent | undefined {
    const released = this.held.nextReleased();
    if (released !== undefined) return this.handOut(released, isContent(released));
    this.releasing = this.completeWhenSent;
    return undefined;
  }

  /** Records one decoded event in the facts; returns it (as the host gets it) when it goes to the host now. */
  take(event: DecodedStreamEvent): TurnEvent | undefined {
    const { facts } = this;
    switch (event.type) {
      case 'text-delta':
        if (this.keepText) facts.visibleText += event.delta;
        return this.takeOutput(event, noteTextDelta(facts, event.delta));
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
        // R11.6: where a continuation's text goes on (block starts and ends are few: no cost per delta).
        facts.openTextBlockId = this.blockIdPrefix + event.id;
        return this.takeOutput(event, false);
      case 'text-end':
        if (facts.openTextBlockId === this.blockIdPrefix + event.id) facts.openTextBlockId = undefined;
        return this.takeOutput(event, false);
      case 'reasoning-end':
        return this.takeOutput(event, false);
      default:
        this.takeOther(event);
        return undefined;
    }
  }

  /** The terminal frame arrived: what was held for the host goes out, then the segment ends complete. */
  completeAfterHeld(): void {
    this.facts.terminalFrameSeen = true;
    this.held.release(this.rules.notices);
    this.completeWhenSent = true;
    this.releasing = true;
  }

  /** An event that is not output: it only changes the facts, or ends the segment. */
  private takeOther(event: DecodedStreamEvent): void {
    const { facts } = this;
    switch (event.type) {
      case 'stream-end':
        facts.terminalFrameSeen = event.terminalFrameSeen;
        // R4.1: a tool call no event could show (no id/name yet, a server tool) still rules out recovery.
        if (event.toolCallSeen === true) facts.toolCallProduced = true;
        if (event.terminalFrameSeen) this.completeAfterHeld();
        else this.endedBy = 'eof';
        return;
      case 'usage':
        facts.usage = event.usage;
        return;
      case 'finish':
        facts.finishReason = event.finishReason;
        return;
      case 'error':
        // R8.12: after the terminal frame the response is complete; a bad record behind it changes nothing.
        if (facts.finishReason !== undefined) this.completeAfterHeld();
        else {
          facts.streamError = event.error;
          this.endedBy = 'stream-error';
        }
        return;
      case 'warning':
        this.rules.notices.addWarning(event.message);
        return;
      case 'response-metadata':
        facts.responseId ??= event.responseId;
        facts.responseModel ??= event.model;
        if (facts.outputConsumed) this.rules.notices.noteMetadata(event);
        else this.held.holdMetadata(event);
        return;
      default:
        // Lifecycle events belong to runTurn, not to a decoder; an event type this version
        // does not know is skipped, never treated as output.
        return;
    }
  }

  /** A content or block event (R4.1: content is what makes a retry visible): to the host, or held until content. */
  private takeOutput(event: TurnEvent, content: boolean): TurnEvent | undefined {
    if (content) this.noteOutputTime();
    // Once the host consumed this segment's output, nothing is held and no pull has more to acknowledge.
    if (this.facts.outputConsumed) return this.handOut(event, false);
    if (!content) {
      this.held.hold(event);
      return undefined;
    }
    if (this.held.release(this.rules.notices)) {
      // The held block starts go first; this event follows them.
      this.held.queueAfterReleased(event);
      this.releasing = true;
      return this.nextReleased();
    }
    return this.handOut(event, true);
  }

  /** `event` is the host's next; `acknowledged`: its pull tells that output was consumed (R4.1). */
  private handOut(event: TurnEvent, acknowledged: boolean): TurnEvent {
    this.handedContent = acknowledged;
    return this.blockIdPrefix === '' ? event : withBlockPrefix(event, this.blockIdPrefix);
  }

  /** A content event of the current batch: the batch's read time is its output time (R5.4). */
  private noteOutputTime(): void {
    if (this.batchTimeNoted) return;
    this.batchTimeNoted = true;
    this.facts.firstOutputAt ??= this.batchReadAt;
    this.facts.lastOutputAt = this.batchReadAt;
  }
}
