import { createParser, type EventSourceMessage } from 'eventsource-parser';

/**
 * Bytes → SSE records, incrementally (first stage of the two-stage decoder,
 * as in anthropic-sdk-typescript src/core/streaming.ts). UTF-8 is decoded in
 * streaming mode so a character split across chunks survives. A record not
 * closed by a blank line when the body ends is dropped, as the SSE spec says:
 * the stream was cut inside it. Errors of the body stream itself propagate.
 */
export async function* readSseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<EventSourceMessage> {
  const pending: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => pending.push(event) });
  const decoder = new TextDecoder('utf-8');
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
      yield* pending.splice(0);
    }
    parser.feed(decoder.decode());
    yield* pending.splice(0);
  } finally {
    // Stops the upstream body when the consumer stops early (return()) or a read failed.
    await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
