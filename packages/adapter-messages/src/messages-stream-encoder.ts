import { encodeSseStream, type TurnEvent, type Usage } from '@turnguard/core';
import { convertUsageToMessages } from './convert-messages-usage.js';
import { mapFinishReasonToMessages } from './map-messages-stop-reason.js';
import type { NativeRecord } from './messages-types.js';
import { toMessagesErrorType } from './messages-error-type.js';

export interface EncodeMessagesStreamOptions {
  /** Message id when the events carry no `response-metadata` id. */
  generateMessageId?: () => string;
  /** Model name when the events carry none. */
  fallbackModel?: string;
}

type EncodedBlock = { index: number; kind: 'text' | 'thinking' | 'redacted' | 'tool'; sentInput: boolean };

/**
 * Neutral events → Messages SSE records (R7.3): `event: <type>\ndata: <json>\n\n`,
 * the framing anthropic-sdk-typescript's Stream.fromSSEResponse reads.
 *
 * - `message_start` is sent lazily, at the first event that needs it, so the
 *   id/model of `response-metadata` and the first usage can go in it.
 * - Blocks get indices in the order they start; neutral ids from another
 *   protocol may interleave, which the SDK accumulates by index.
 * - A finish closes open blocks, then sends `message_delta` (stop_reason and
 *   the known usage only, R5.3) and `message_stop`. The stop_sequence text and
 *   refusal `stop_details` are not in neutral events and go out as null/absent.
 * - `recovery-start` closes every open block (R8.7): the recovery's blocks get
 *   the next indices, after the cut segment's stops.
 * - An error becomes `event: error` and ends the encoded stream, as upstream does.
 * - A stream that ends with no finish ends without a terminal frame: a cut is
 *   relayed as a cut, never disguised as a normal stop.
 */
export class MessagesStreamEncoder {
  readonly #options: EncodeMessagesStreamOptions;
  readonly #blocks = new Map<string, EncodedBlock>();
  #nextIndex = 0;
  #messageId: string | undefined;
  #model: string | undefined;
  #usage: Usage | undefined;
  #messageStarted = false;
  #closed = false;
  /** False while `observe` runs: frames are not rendered (no JSON.stringify), state still advances. */
  #rendering = true;

  constructor(options: EncodeMessagesStreamOptions = {}) {
    this.#options = options;
  }

  /**
   * Advances the state as `encodeEvent(event)` would, rendering nothing: for
   * a relay that forwarded the upstream's own bytes for this event and may
   * have to continue the same message with this encoder later (gateway splice).
   */
  observe(event: TurnEvent): void {
    // A text or thinking delta changes nothing but what is rendered: nearly every relayed event is one.
    if (event.type === 'text-delta' || event.type === 'reasoning-delta') return;
    this.#rendering = false;
    try {
      this.encodeEvent(event);
    } finally {
      this.#rendering = true;
    }
  }

  /**
   * `observe` for the metadata of a `message_start` that reached the client
   * from elsewhere (a relay of the upstream's own record): the encoder then
   * continues that message and never sends a second `message_start` (R8.7),
   * even before any block was observed.
   */
  observeMessageStart(event: Extract<TurnEvent, { type: 'response-metadata' }>): void {
    this.observe(event);
    this.#messageStarted = true;
  }

  /** One neutral event → SSE text (often empty). */
  encodeEvent(event: TurnEvent): string {
    if (this.#closed) return '';
    switch (event.type) {
      case 'response-metadata':
        if (!this.#messageStarted) {
          this.#messageId = event.responseId ?? this.#messageId;
          this.#model = event.model ?? this.#model;
        }
        return '';
      case 'usage':
        this.#usage = event.usage;
        return '';
      case 'text-start':
        return this.#startBlock(event.id, 'text', { type: 'text', text: '' });
      case 'text-delta':
        return this.#delta(event.id, { type: 'text_delta', text: event.delta });
      case 'reasoning-start':
        return event.redacted === true
          ? this.#startBlock(event.id, 'redacted', { type: 'redacted_thinking', data: event.encrypted ?? '' })
          : this.#startBlock(event.id, 'thinking', { type: 'thinking', thinking: '', signature: '' });
      case 'reasoning-delta':
        return this.#delta(event.id, { type: 'thinking_delta', thinking: event.delta });
      case 'reasoning-end': {
        const block = this.#blocks.get(event.id);
        const signature =
          block?.kind === 'thinking' && event.signature !== undefined
            ? this.#delta(event.id, { type: 'signature_delta', signature: event.signature })
            : '';
        return signature + this.#stopBlock(event.id);
      }
      case 'tool-call-start':
        return this.#startBlock(event.toolCallId, 'tool', { type: 'tool_use', id: event.toolCallId, name: event.toolName, input: {} });
      case 'tool-call-delta':
        return this.#delta(event.toolCallId, { type: 'input_json_delta', partial_json: event.delta });
      case 'tool-call-end': {
        const block = this.#blocks.get(event.toolCallId);
        // Arguments that arrived whole (no deltas) are sent as one fragment before the stop.
        const input = block !== undefined && !block.sentInput && event.input !== '' ? this.#delta(event.toolCallId, { type: 'input_json_delta', partial_json: event.input }) : '';
        return input + this.#stopBlock(event.toolCallId);
      }
      case 'text-end':
        return this.#stopBlock(event.id);
      case 'finish':
        return this.#finish(mapFinishReasonToMessages(event.finishReason));
      case 'error':
        this.#closed = true;
        return this.#frame('error', { type: 'error', error: { type: toMessagesErrorType(event.error.kind), message: event.error.message } });
      case 'heartbeat':
        // R1.11: keeps the host's connection alive during a long wait; the SDK skips pings.
        return this.#frame('ping', { type: 'ping' });
      case 'recovery-start':
      case 'fallback':
        // R8.7: segment 1 may have been cut inside a block (a thinking block with no stop). Close
        // every open block before the recovery's (or a fallback's, R11.2) blocks start: Claude
        // Code builds one message per content_block_stop and answers with the last one (R8.2),
        // and a start before the previous stop breaks the SDK's index order.
        return this.#stopOpenBlocks();
      case 'continuation-start':
        // R11.6: the continuation's text goes on in the open text block: nothing is closed.
        return '';
      case 'retry':
      case 'tombstone':
      case 'warning':
        // Lifecycle events have no Messages wire form.
        return '';
      default: {
        const _exhaustive: never = event;
        return String(_exhaustive);
      }
    }
  }

  #ensureMessageStart(): string {
    if (this.#messageStarted) return '';
    this.#messageStarted = true;
    const id = this.#messageId ?? this.#options.generateMessageId?.() ?? `msg_turnguard_${Date.now().toString(36)}`;
    const message = {
      id,
      type: 'message',
      role: 'assistant',
      model: this.#model ?? this.#options.fallbackModel ?? 'unknown',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: convertUsageToMessages(this.#usage),
    };
    return this.#frame('message_start', { type: 'message_start', message });
  }

  #startBlock(id: string, kind: EncodedBlock['kind'], contentBlock: NativeRecord): string {
    if (this.#blocks.has(id)) return '';
    const start = this.#ensureMessageStart();
    const block: EncodedBlock = { index: this.#nextIndex, kind, sentInput: false };
    this.#nextIndex += 1;
    this.#blocks.set(id, block);
    return start + this.#frame('content_block_start', { type: 'content_block_start', index: block.index, content_block: contentBlock });
  }

  #delta(id: string, delta: NativeRecord): string {
    const block = this.#blocks.get(id);
    if (block === undefined) return '';
    if (delta['type'] === 'input_json_delta') block.sentInput = true;
    return this.#frame('content_block_delta', { type: 'content_block_delta', index: block.index, delta });
  }

  #stopBlock(id: string): string {
    const block = this.#blocks.get(id);
    if (block === undefined) return '';
    this.#blocks.delete(id);
    return this.#frame('content_block_stop', { type: 'content_block_stop', index: block.index });
  }

  /** content_block_stop for every open block, in index order. */
  #stopOpenBlocks(): string {
    let text = '';
    for (const id of [...this.#blocks.keys()]) text += this.#stopBlock(id);
    return text;
  }

  #finish(stopReason: string): string {
    let text = this.#ensureMessageStart();
    text += this.#stopOpenBlocks();
    text += this.#frame('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: convertUsageToMessages(this.#usage),
    });
    text += this.#frame('message_stop', { type: 'message_stop' });
    this.#closed = true;
    return text;
  }

  #frame(eventType: string, data: unknown): string {
    return this.#rendering ? frame(eventType, data) : '';
  }
}

function frame(eventType: string, data: unknown): string {
  return `event: ${eventType}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Neutral events → a byte stream of Messages SSE, produced as the events arrive (R7.3, R8.2). */
export function encodeMessagesStream(
  events: AsyncIterable<TurnEvent>,
  options: EncodeMessagesStreamOptions = {},
): ReadableStream<Uint8Array> {
  const encoder = new MessagesStreamEncoder(options);
  // Messages needs nothing after its last event: message_stop (or an error event) closes it.
  return encodeSseStream(events, { encodeEvent: (event) => encoder.encodeEvent(event), finish: () => '' });
}
