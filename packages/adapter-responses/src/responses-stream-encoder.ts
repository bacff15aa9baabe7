import type { TurnEvent } from '@turnguard/core';
import { ResponsesStreamEventBuilder, type UnnumberedEvent } from './build-responses-stream-events.js';

/**
 * Neutral events → Responses SSE bytes (R7.3): each event framed as
 * `event: <type>\ndata: <json>\n\n` with a growing `sequence_number`, no
 * `[DONE]` (wire-formats §3.1). Pulls one neutral event at a time, so output
 * is relayed as it arrives (R8.2); cancelling the byte stream stops the source.
 */
export function encodeResponsesStream(events: AsyncIterable<TurnEvent>): ReadableStream<Uint8Array> {
  const builder = new ResponsesStreamEventBuilder();
  const textEncoder = new TextEncoder();
  const iterator = events[Symbol.asyncIterator]();
  let sequenceNumber = 0;
  const frame = (nativeEvents: UnnumberedEvent[]): Uint8Array =>
    textEncoder.encode(
      nativeEvents
        .map((nativeEvent) => {
          const { type, ...fields } = nativeEvent;
          const payload = { type, sequence_number: sequenceNumber++, ...fields };
          return `event: ${type}\ndata: ${JSON.stringify(payload)}\n\n`;
        })
        .join(''),
    );

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const next = await iterator.next();
        if (next.done === true) {
          const closing = builder.end();
          if (closing.length > 0) controller.enqueue(frame(closing));
          controller.close();
          return;
        }
        const nativeEvents = builder.build(next.value);
        if (nativeEvents.length > 0) {
          controller.enqueue(frame(nativeEvents));
          return;
        }
      }
    },
    async cancel(reason) {
      await iterator.return?.(reason);
    },
  });
}
