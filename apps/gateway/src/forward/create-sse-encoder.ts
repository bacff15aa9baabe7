import { ChatChunkEncoder } from '@turnguard/adapter-chat';
import { MessagesStreamEncoder } from '@turnguard/adapter-messages';
import { ResponsesStreamEncoder } from '@turnguard/adapter-responses';
import type { Protocol, TurnEvent } from '@turnguard/core';

/** Neutral events → SSE text, one event at a time, synchronously. */
export interface SseTextEncoder {
  encode(event: TurnEvent): string;
  /** Whatever follows the last event (Chat: the usage chunk and `[DONE]`). */
  end(): string;
}

/**
 * The adapters' own encoder classes, driven directly: the same bytes as their
 * `encodeStream` (R7.3) without a ReadableStream pull and two promise hops
 * per event, which measured as a visible share of the gateway's per-chunk
 * cost at 50 streams (bench/README.md).
 */
export function createSseTextEncoder(protocol: Protocol): SseTextEncoder {
  switch (protocol) {
    case 'chat': {
      const encoder = new ChatChunkEncoder();
      return { encode: (event) => joinRecords(encoder.encode(event)), end: () => joinRecords(encoder.finish()) };
    }
    case 'messages': {
      const encoder = new MessagesStreamEncoder();
      return { encode: (event) => encoder.encodeEvent(event), end: () => '' };
    }
    case 'responses': {
      const encoder = new ResponsesStreamEncoder();
      return { encode: (event) => encoder.encodeEvent(event), end: () => encoder.finish() };
    }
    default: {
      const _exhaustive: never = protocol;
      return _exhaustive;
    }
  }
}

function joinRecords(records: string[]): string {
  return records.length === 1 ? records[0]! : records.join('');
}
