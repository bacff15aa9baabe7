import type { TurnEvent } from '../types/turn-event.js';
import type { SegmentNotices } from './segment-recorder.js';
import type { MetadataEvent } from './segment-facts.js';

/**
 * What a segment holds back until its first content (R4.1). An attempt that
 * fails before any content is retried (R1.1) and must leave no trace with the
 * host: its response id and empty block starts wait for its first content
 * event (one logical response, R8.2) and are dropped if none comes. A terminal
 * frame with no content releases them too.
 */
export class HeldOutput {
  private metadata: MetadataEvent | undefined;
  private events: TurnEvent[] = [];
  /** Released by the first content (or the terminal frame): handed over, one per host pull, before anything else. */
  private released: TurnEvent[] = [];

  holdMetadata(event: MetadataEvent): void {
    this.metadata ??= event;
  }

  hold(event: TurnEvent): void {
    this.events.push(event);
  }

  /** Shows the held response metadata and queues the held events to go first; true when there were any. */
  release(notices: SegmentNotices): boolean {
    if (this.metadata !== undefined) notices.noteMetadata(this.metadata);
    this.metadata = undefined;
    if (this.events.length === 0) return false;
    this.released = this.events;
    this.events = [];
    return true;
  }

  /** Queues `event` behind the released ones (the content event that released them). */
  queueAfterReleased(event: TurnEvent): void {
    this.released.push(event);
  }

  /** The next released event (undefined when none is left); the drained array is let go rather than held by the open stream. */
  nextReleased(): TurnEvent | undefined {
    if (this.released.length === 0) return undefined;
    const event = this.released.shift();
    if (this.released.length === 0) this.released = [];
    return event;
  }
}
