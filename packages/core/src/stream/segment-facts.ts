import type { TurnError } from '../errors/turn-error.js';
import type { FinishReason } from '../types/finish-reason.js';
import type { TurnEvent } from '../types/turn-event.js';
import type { Usage } from '../types/usage.js';

// What the segment reader records about a segment, and how it tells the kinds of events apart.

export type SegmentEnd = 'terminal' | 'eof' | 'stream-error' | 'transport-error' | 'aborted';

/** What one streamed segment did. `reasoningText` stays in memory only (R4.10). */
export interface SegmentFacts {
  end: SegmentEnd;
  terminalFrameSeen: boolean;
  finishReason: FinishReason | undefined;
  /** The last usage the segment reported (later usage replaces earlier, R7.2). */
  usage: Usage | undefined;
  reasoningText: string;
  textProduced: boolean;
  nonWhitespaceText: boolean;
  toolCallProduced: boolean;
  /** Some content event of this segment was consumed by the host. */
  outputConsumed: boolean;
  streamError: TurnError | undefined;
  transportError: unknown;
  firstOutputAt: number | undefined;
  lastOutputAt: number | undefined;
  /** The upstream's id for this response (its first `response-metadata`), when it sent one. */
  responseId: string | undefined;
  /** The model the upstream named in its first `response-metadata`, when it named one (R12.1). */
  responseModel: string | undefined;
  /** The answer text handed to the host, kept only for a mid-answer continuation's prefill (R11.6); '' otherwise. */
  visibleText: string;
  /** The text block the host has open (started, not ended), as the host knows its id: a continuation goes on in it (R11.6). */
  openTextBlockId: string | undefined;
}

/** Content is what makes a retry visible to the host (R4.1); SegmentRecorder's `take` applies the same rules per case. */
export function isContent(event: TurnEvent): boolean {
  switch (event.type) {
    case 'text-delta':
    case 'reasoning-delta':
      return event.delta !== '';
    case 'reasoning-start':
      return isContentBlockStart(event);
    case 'tool-call-start':
    case 'tool-call-delta':
    case 'tool-call-end':
      return true;
    default:
      return false;
  }
}

/** A reasoning block that opens with what the host must see: redacted, or carrying encrypted content. */
export function isContentBlockStart(event: Extract<TurnEvent, { type: 'reasoning-start' }>): boolean {
  return event.redacted === true || event.encrypted !== undefined;
}

/** A text delta's facts (R4.1, R4.2); true when it is content (not empty). */
export function noteTextDelta(facts: SegmentFacts, delta: string): boolean {
  if (delta === '') return false;
  facts.textProduced = true;
  // trim() allocates: once one non-whitespace delta was seen, the rest need no check.
  if (!facts.nonWhitespaceText && delta.trim() !== '') facts.nonWhitespaceText = true;
  return true;
}

export function withBlockPrefix(event: TurnEvent, prefix: string): TurnEvent {
  if (prefix === '') return event;
  switch (event.type) {
    case 'text-start':
    case 'text-delta':
    case 'text-end':
    case 'reasoning-start':
    case 'reasoning-delta':
    case 'reasoning-end':
      return { ...event, id: prefix + event.id };
    default:
      return event;
  }
}

export type MetadataEvent = Extract<TurnEvent, { type: 'response-metadata' }>;

export function createFacts(): SegmentFacts {
  return {
    end: 'eof',
    terminalFrameSeen: false,
    finishReason: undefined,
    usage: undefined,
    reasoningText: '',
    textProduced: false,
    nonWhitespaceText: false,
    toolCallProduced: false,
    outputConsumed: false,
    streamError: undefined,
    transportError: undefined,
    firstOutputAt: undefined,
    lastOutputAt: undefined,
    responseId: undefined,
    responseModel: undefined,
    visibleText: '',
    openTextBlockId: undefined,
  };
}

