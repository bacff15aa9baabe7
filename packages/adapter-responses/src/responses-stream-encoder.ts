import type { TurnEvent } from '@turnguard/core';
import { ResponsesStreamEventBuilder, type UnnumberedEvent } from './build-responses-stream-events.js';

/**
 * Neutral events → Responses SSE text, one event at a time, synchronously:
 * each native event framed as `event: <type>\ndata: <json>\n\n` with a
 * growing `sequence_number`, no `[DONE]` (wire-formats §3.1). One instance
 * per encoded response; the gateway drives it directly (R8.2).
 */
export class ResponsesStreamEncoder {
  readonly #builder = new ResponsesStreamEventBuilder();
  #sequenceNumber = 0;

  /** The SSE records for one neutral event ('' when it has no wire form of its own). */
  encodeEvent(event: TurnEvent): string {
    return this.#frame(this.#builder.build(event));
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

/**
 * Neutral events → Responses SSE bytes (R7.3). Pulls one neutral event at a
 * time, so output is relayed as it arrives (R8.2); cancelling the byte
 * stream stops the source.
 */
export function encodeResponsesStream(events: AsyncIterable<TurnEvent>): ReadableStream<Uint8Array> {
  const encoder = new ResponsesStreamEncoder();
  const textEncoder = new TextEncoder();
  const iterator = events[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const next = await iterator.next();
        if (next.done === true) {
          const closing = encoder.finish();
          if (closing !== '') controller.enqueue(textEncoder.encode(closing));
          controller.close();
          return;
        }
        const text = encoder.encodeEvent(next.value);
        if (text !== '') {
          controller.enqueue(textEncoder.encode(text));
          return;
        }
      }
    },
    async cancel(reason) {
      await iterator.return?.(reason);
    },
  });
}
