import { decodeSseStream, type DecodedStreamEvent, type SseRecordDecoder, type ByteStream, type DecodeStreamOptions } from '@turnguard/core';
import { ResponsesStreamEventMapper } from './map-responses-stream-event.js';

/**
 * Responses SSE bytes → neutral events, incrementally (R7.2): bytes → text
 * (streaming UTF-8, so a split multi-byte character is never mangled) → SSE
 * records (core's `SseFramer`, framing as eventsource-parser does) → `ResponsesStreamEventMapper`, served by
 * core's `decodeSseStream` (one reused batch per read, no async-generator
 * step per event: decision 0320). The last item is always
 * `{type:'stream-end', terminalFrameSeen}`. Bad data becomes an `error`
 * event; only a failure of the body stream itself is thrown.
 */
export function decodeResponsesStream(body: ByteStream, options: DecodeStreamOptions = {}): AsyncGenerator<DecodedStreamEvent> {
  return decodeSseStream<DecodedStreamEvent>(body, {
    decoder: new ResponsesSseDecoder(),
    // A last record whose lines are complete but which lacks the closing blank
    // line still counts; a record cut inside a line is dropped (it is a cut,
    // which `terminalFrameSeen: false` already reports).
    lastRecord: 'complete-lines',
    records: options.records,
  });
}

/** The per-stream decoder handed to core's iterator. */
class ResponsesSseDecoder implements SseRecordDecoder<DecodedStreamEvent> {
  readonly #mapper = new ResponsesStreamEventMapper();

  pushRecordEvents(_eventName: string | undefined, data: string, events: DecodedStreamEvent[]): void {
    // The `event:` line repeats the JSON `type`, so only `data` is read (wire-formats §3.1).
    this.#mapper.pushRecordEvents(data, events);
  }

  pushEndEvents(events: DecodedStreamEvent[]): void {
    events.push(this.#mapper.end());
  }
}
