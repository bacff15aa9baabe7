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
 * cost at 50 streams (bench/README.md). Small classes, not literals of three
 * closures: the relay holds its encoder for the whole stream (decision 0295).
 */
export function createSseTextEncoder(protocol: Protocol): SpliceableSseEncoder {
  switch (protocol) {
    case 'chat':
      return new ChatSseTextEncoder();
    case 'messages':
      return new MessagesSseTextEncoder();
    case 'responses':
      return new ResponsesStreamEncoder();
    default: {
      const _exhaustive: never = protocol;
      return _exhaustive;
    }
  }
}

class ChatSseTextEncoder implements SpliceableSseEncoder {
  readonly #encoder = new ChatChunkEncoder();

  encodeEvent(event: TurnEvent): string {
    return joinRecords(this.#encoder.encode(event));
  }

  observe(event: TurnEvent): void {
    this.#encoder.observe(event);
  }

  finish(): string {
    return joinRecords(this.#encoder.finish());
  }
}

class MessagesSseTextEncoder implements SpliceableSseEncoder {
  readonly #encoder = new MessagesStreamEncoder();

  encodeEvent(event: TurnEvent): string {
    return this.#encoder.encodeEvent(event);
  }

  observe(event: TurnEvent): void {
    // The Messages decoder reads metadata from `message_start` only: observed, that record is the client's.
    if (event.type === 'response-metadata') this.#encoder.observeMessageStart(event);
    else this.#encoder.observe(event);
  }

  finish(): string {
    return '';
  }
}

function joinRecords(records: string[]): string {
  return records.length === 1 ? records[0]! : records.join('');
}
