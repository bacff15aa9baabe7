import { ChatChunkEncoder } from '@turnguard/adapter-chat';
import { MessagesStreamEncoder } from '@turnguard/adapter-messages';
import { ResponsesStreamEncoder } from '@turnguard/adapter-responses';
import type { Protocol, SseTextEncoder, TurnEvent } from '@turnguard/core';

/**
 * An encoder the raw relay can splice into: `observe` follows events whose
 * upstream bytes were relayed (state only, nothing rendered); Responses
 * continues the upstream's sequence numbers.
 */
export interface SpliceableSseEncoder extends SseTextEncoder {
  observe(event: TurnEvent): void;
  continueSequenceAt?(next: number): void;
}

/**
 * The adapters' own encoder classes, driven directly: the same bytes as their
 * `encodeStream` (R7.3) without a ReadableStream pull and two promise hops
 * per event, which measured as a visible share of the gateway's per-chunk
 * cost at 50 streams (bench/README.md).
 */
export function createSseTextEncoder(protocol: Protocol): SpliceableSseEncoder {
  switch (protocol) {
    case 'chat': {
      const encoder = new ChatChunkEncoder();
      return {
        encodeEvent: (event) => joinRecords(encoder.encode(event)),
        observe: (event) => encoder.observe(event),
        finish: () => joinRecords(encoder.finish()),
      };
    }
    case 'messages': {
      const encoder = new MessagesStreamEncoder();
      return { encodeEvent: (event) => encoder.encodeEvent(event), observe: (event) => encoder.observe(event), finish: () => '' };
    }
    case 'responses':
      return new ResponsesStreamEncoder();
    default: {
      const _exhaustive: never = protocol;
      return _exhaustive;
    }
  }
}

function joinRecords(records: string[]): string {
  return records.length === 1 ? records[0]! : records.join('');
}
