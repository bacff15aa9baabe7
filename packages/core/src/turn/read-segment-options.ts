import type { DecodedStreamEvent, TurnEvent } from '../types/turn-event.js';
import type { EventChannel } from './event-channel.js';
import type { AbortRace } from './race-abort.js';
import type { SegmentFacts } from './segment-facts.js';
import { ignore } from '../internal/ignore.js';

// What readSegment is given: its contract with runTurn and the decoder, apart from the reader itself.

export interface ReadSegmentOptions {
  events: AsyncIterable<DecodedStreamEvent>;
  /** The request's abort race: an abort ends the segment at once, whatever it awaits (R1.6). */
  race: AbortRace;
  /**
   * Where events go to the host (runTurn's EventChannel): `listener.resume`
   * runs once the host took the event and pulled again, inside that pull, and
   * returns the next buffered event for the channel to hand over with it;
   * `listener.stop` runs if the host stopped iterating instead. An object with a method, not a closure
   * per turn: optimised code that inlined a turn's closure was thrown away
   * when a GC collected it ("weak objects", issue 19).
   */
  channel: Pick<EventChannel, 'handOver'>;
  /** Warnings and the segment's response metadata (runTurn shows the first one of the turn only): runTurn's TurnState. */
  notices: SegmentNotices;
  now(): number;
  /** R4.5: the recovery segment's tool calls are never handed to the host. */
  forwardToolCalls: boolean;
  /** Keeps block ids of different segments apart for the host. */
  blockIdPrefix: string;
  /** R4.3: the reasoning text is kept for a recovery checkpoint (false: recovery is off, or this segment is the recovery). */
  keepReasoning: boolean;
  /** R4.7: the checkpoint's limit; reasoning past it is not kept (no recovery can follow). */
  reasoningMaxChars: number;
}

/** What a segment tells runTurn besides its events. Methods of one object, not closures per turn (see `channel`). */
export interface SegmentNotices {
  addWarning(message: string): void;
  noteMetadata(event: Extract<TurnEvent, { type: 'response-metadata' }>): void;
}

/** Who hears how a segment ended, once: its facts, or what a read or a host's pull threw. */
export interface SegmentEndListener {
  onSegmentEnd(facts: SegmentFacts): void;
  onSegmentFailed(error: unknown): void;
}

/** The decoder's synchronous read of its current batch (core's decodeSseStream has it; other iterators may not). */
export interface BufferedEvents {
  takeBuffered?(): DecodedStreamEvent | undefined;
}

/** The idle reader's listener (see `IDLE_READER_OPTIONS`). */
export const IDLE_END_LISTENER: SegmentEndListener = { onSegmentEnd: ignore, onSegmentFailed: ignore };

/** Options of the idle reader that keeps SegmentReader's shape alive (see its `shapeAnchor`). */
export const IDLE_READER_OPTIONS = {
  events: { [Symbol.asyncIterator]: () => ({ next: () => Promise.resolve({ done: true as const, value: undefined }) }) },
  race: { watch: ignore },
  channel: { handOver: ignore },
  notices: { addWarning: ignore, noteMetadata: ignore },
  now: Date.now,
  forwardToolCalls: false,
  blockIdPrefix: '',
  keepReasoning: true,
  reasoningMaxChars: 0,
} as unknown as ReadSegmentOptions;
