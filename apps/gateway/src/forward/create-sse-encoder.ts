import { ChatChunkEncoder } from '@turnguard/adapter-chat';
import { MessagesStreamEncoder } from '@turnguard/adapter-messages';
import { ResponsesStreamEncoder } from '@turnguard/adapter-responses';
import type { Protocol, SseTextEncoder, TurnEvent } from '@turnguard/core';
import { toFinalFailure, wordForClient } from './send-final-failure.js';

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
 * cost at 50 streams (bench/README.md). Each wraps its adapter's encoder and
 * words a failure for the client (R8.3, R8.10).
 */
export function createSseTextEncoder(protocol: Protocol): SpliceableSseEncoder {
  switch (protocol) {
    case 'chat':
      return new ChatSseTextEncoder();
    case 'messages':
      return new MessagesSseTextEncoder();
    case 'responses':
      return new ResponsesSseTextEncoder();
    default: {
      const _exhaustive: never = protocol;
      return _exhaustive;
    }
  }
}

/** Events that put part of the answer (reasoning included) in front of the client, or started a recovery (R8.10). */
function isOutput(event: TurnEvent): boolean {
  switch (event.type) {
    case 'text-delta':
    case 'reasoning-delta':
    case 'tool-call-start':
    case 'tool-call-delta':
    case 'recovery-start':
      return true;
    default:
      return false;
  }
}

/**
 * A turn's failure as the gateway writes it in the stream (R8.3): worded for
 * the client, and once output went out, in the shape real clients treat as
 * final (R8.10, decision 0360): the stream's headers left long ago, so this
 * frame is the only place left to say "do not resend".
 */
function forClient(event: TurnEvent, afterOutput: boolean): TurnEvent {
  if (event.type !== 'error') return event;
  return { type: 'error', error: afterOutput ? toFinalFailure(event.error) : wordForClient(event.error) };
}

class ChatSseTextEncoder implements SpliceableSseEncoder {
  readonly #encoder = new ChatChunkEncoder();
  #afterOutput = false;

  encodeEvent(event: TurnEvent): string {
    if (!this.#afterOutput && isOutput(event)) this.#afterOutput = true;
    return joinRecords(this.#encoder.encode(forClient(event, this.#afterOutput)));
  }

  observe(event: TurnEvent): void {
    if (!this.#afterOutput && isOutput(event)) this.#afterOutput = true;
    this.#encoder.observe(event);
  }

  finish(): string {
    return joinRecords(this.#encoder.finish());
  }
}

class MessagesSseTextEncoder implements SpliceableSseEncoder {
  readonly #encoder = new MessagesStreamEncoder();
  #afterOutput = false;

  encodeEvent(event: TurnEvent): string {
    if (!this.#afterOutput && isOutput(event)) this.#afterOutput = true;
    return this.#encoder.encodeEvent(forClient(event, this.#afterOutput));
  }

  observe(event: TurnEvent): void {
    if (!this.#afterOutput && isOutput(event)) this.#afterOutput = true;
    // The Messages decoder reads metadata from `message_start` only: observed, that record is the client's.
    if (event.type === 'response-metadata') this.#encoder.observeMessageStart(event);
    else this.#encoder.observe(event);
  }

  finish(): string {
    return '';
  }
}

class ResponsesSseTextEncoder extends ResponsesStreamEncoder {
  #afterOutput = false;

  override encodeEvent(event: TurnEvent): string {
    if (!this.#afterOutput && isOutput(event)) this.#afterOutput = true;
    return super.encodeEvent(forClient(event, this.#afterOutput));
  }

  override observe(event: TurnEvent): void {
    if (!this.#afterOutput && isOutput(event)) this.#afterOutput = true;
    super.observe(event);
  }
}

function joinRecords(records: string[]): string {
  return records.length === 1 ? records[0]! : records.join('');
}
