import { createParser, type EventSourceMessage } from 'eventsource-parser';

/**
 * Bytes → SSE records → events, incrementally, in ONE async generator.
 * `decodeRecord` appends each record's events to the batch of the current
 * network read (it is called from eventsource-parser's callback); the batch
 * is yielded event by event from a plain loop and the array reused. Stacking
 * a record generator under an event generator, with a `yield*` per record,
 * cost 41 % of the Messages decoder (bench/README.md, "decode").
 *
 * UTF-8 is decoded in streaming mode so a character split across chunks
 * survives. A record not closed by a blank line when the body ends is
 * dropped, as the SSE spec says: the stream was cut inside it (anthropic-sdk-
 * typescript src/core/streaming.ts reads it the same way). `pushEndEvents`
 * adds the events that close the stream. Errors of the body stream itself
 * propagate, after the events of earlier reads.
 */
export async function* decodeSseBody<Event>(
  body: ReadableStream<Uint8Array>,
  decodeRecord: (record: EventSourceMessage, events: Event[]) => void,
  pushEndEvents: (events: Event[]) => void,
): AsyncGenerator<Event> {
  const events: Event[] = [];
  const parser = createParser({ onEvent: (record) => decodeRecord(record, events) });
  const textDecoder = new TextDecoder('utf-8');
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(textDecoder.decode(value, { stream: true }));
      for (let index = 0; index < events.length; index += 1) yield events[index]!;
      events.length = 0;
    }
    parser.feed(textDecoder.decode());
    pushEndEvents(events);
    for (let index = 0; index < events.length; index += 1) yield events[index]!;
    events.length = 0;
  } finally {
    // Stops the upstream body when the consumer stops early (return()) or a read failed.
    await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
