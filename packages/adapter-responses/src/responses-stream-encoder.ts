import { encodeSseStream, type SseTextEncoder, type TurnEvent } from '@turnguard/core';
import { ResponsesStreamEventBuilder, type UnnumberedEvent } from './build-responses-stream-events.js';

/**
 * Neutral events → Responses SSE text, one event at a time, synchronously:
 * each native event framed as `event: <type>\ndata: <json>\n\n` with a
 * growing `sequence_number`, no `[DONE]` (wire-formats §3.1). One instance
 * per encoded response; the gateway drives it directly (R8.2).
 */
export class ResponsesStreamEncoder implements SseTextEncoder {
  readonly #builder = new ResponsesStreamEventBuilder();
  #sequenceNumber = 0;

  /**
   * Advances the state as `encodeEvent(event)` would — item bookkeeping and
   * sequence numbers — rendering nothing: for a relay that forwarded the
   * upstream's own bytes for this event (gateway splice).
   */
  observe(event: TurnEvent): void {
    this.#sequenceNumber += this.#builder.build(event).length;
  }

  /** The SSE records for one neutral event ('' when it has no wire form of its own). */
  encodeEvent(event: TurnEvent): string {
    return this.#frame(this.#builder.build(event));
  }

  /**
   * Numbers the next frame `next`: a gateway that relayed the upstream's own
   * frames up to a splice point continues their `sequence_number`s instead of
   * restarting its own count (R8.2: consistent sequence numbers).
   */
  continueSequenceAt(next: number): void {
    this.#sequenceNumber = next;
  }

  /** What closes the response after the last event (the terminal frame when none came). */
  finish(): string {
    return this.#frame(this.#builder.end());
  }

  #frame(nativeEvents: UnnumberedEvent[]): string {
    let text = '';
    for (const { type, ...fields } of nativeEvents) {
      text += `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: this.#sequenceNumber++, ...fields })}\n\n`;
    }
    return text;
  }
}

/** Neutral events → Responses SSE bytes (R7.3), relayed as they arrive (R8.2). */
export function encodeResponsesStream(events: AsyncIterable<TurnEvent>): ReadableStream<Uint8Array> {
  return encodeSseStream(events, new ResponsesStreamEncoder());
}
