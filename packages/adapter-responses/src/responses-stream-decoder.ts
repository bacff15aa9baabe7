import type { DecodedStreamEvent } from '@turnguard/core';
import { createParser } from 'eventsource-parser';
import { ResponsesStreamEventMapper } from './map-responses-stream-event.js';

/**
 * Responses SSE bytes → neutral events, incrementally (R7.2): bytes → text
 * (streaming UTF-8, so a split multi-byte character is never mangled) → SSE
 * records (`eventsource-parser`) → `ResponsesStreamEventMapper`. The last item
 * is always `{type:'stream-end', terminalFrameSeen}`. Bad data becomes an
 * `error` event; only a failure of the body stream itself is thrown.
 */
export async function* decodeResponsesStream(body: ReadableStream<Uint8Array>): AsyncGenerator<DecodedStreamEvent> {
  const mapper = new ResponsesStreamEventMapper();
  // One array reused for every read: the parser callback maps each record
  // into it, then this one generator yields its items from a plain loop. A
  // `yield*` over `splice(0)` plus a spread per record cost about as much as
  // the mapping itself (bench/README.md, "decode"; decision 0140).
  const events: DecodedStreamEvent[] = [];
  // The `event:` line repeats the JSON `type`, so only `data` is read (wire-formats §3.1).
  const parser = createParser({ onEvent: (record) => mapper.pushRecordEvents(record.data, events) });
  const textDecoder = new TextDecoder();
  const reader = body.getReader();
  let endsWithNewline = true;
  let bodyFinished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        bodyFinished = true;
        break;
      }
      const text = textDecoder.decode(value, { stream: true });
      if (text !== '') endsWithNewline = text.endsWith('\n') || text.endsWith('\r');
      parser.feed(text);
      for (let index = 0; index < events.length; index += 1) yield events[index]!;
      events.length = 0;
    }
    const rest = textDecoder.decode();
    if (rest !== '') {
      endsWithNewline = rest.endsWith('\n') || rest.endsWith('\r');
      parser.feed(rest);
    }
    // A last record whose lines are complete but which lacks the closing blank
    // line still counts; a record cut inside a line is dropped (it is a cut,
    // which `terminalFrameSeen: false` already reports).
    if (endsWithNewline) parser.feed('\n');
    events.push(mapper.end());
    for (let index = 0; index < events.length; index += 1) yield events[index]!;
    events.length = 0;
  } finally {
    // A consumer that stops early (or a failed read) must not leave the upstream body open.
    if (!bodyFinished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
