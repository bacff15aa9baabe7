import type { DecodedStreamEvent, StreamEnd } from '@turnguard/core';
import { classifyMessagesStreamError, createInvalidStreamDataError } from './classify-messages-error.js';
import { convertMessagesUsage, mergeMessagesUsage } from './convert-messages-usage.js';
import { mapMessagesStopReason } from './map-messages-stop-reason.js';
import { isRecord, type NativeRecord } from './messages-types.js';
import { readSseEvents } from './read-sse-events.js';

type OpenBlock =
  | { kind: 'text'; id: string }
  | { kind: 'reasoning'; id: string; signature: string | undefined }
  | { kind: 'redacted'; id: string; data: string }
  | { kind: 'tool'; toolCallId: string; toolName: string; inputParts: string[]; initialInput: unknown }
  /** Server tool blocks, citations containers…: no neutral event; their deltas are skipped. */
  | { kind: 'ignored' };

/**
 * Messages SSE records → neutral events (R7.2), one record at a time. Pure
 * state machine; `decodeMessagesStream` feeds it from bytes.
 *
 * Terminal frame: `message_delta` with a `stop_reason` AND then
 * `message_stop` (SPEC "terminal frame"). `finish` is emitted at
 * `message_stop`, so a stream cut between the two has no finish and reports
 * `terminalFrameSeen: false`.
 */
export class MessagesStreamDecoder {
  #messageId: string | undefined;
  #messageStarted = false;
  /** A second, different message started inside the first: nothing after it is trusted. */
  #spliced = false;
  #stopped = false;
  #stopReason: string | undefined;
  #nativeUsage: NativeRecord = {};
  #terminalFrameSeen = false;
  readonly #blocks = new Map<number, OpenBlock>();

  /** One SSE record → the neutral events it stands for (often none). Never throws. */
  decodeRecord(eventName: string | undefined, data: string): DecodedStreamEvent[] {
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      parsed = undefined;
    }
    // anthropic-sdk-typescript Stream.fromSSEResponse: `event: error` is an APIError whatever the data holds.
    if (eventName === 'error' || (isRecord(parsed) && parsed['type'] === 'error')) {
      return [{ type: 'error', error: classifyMessagesStreamError(data) }];
    }
    if (eventName === 'ping') return [];
    if (!isRecord(parsed)) return [{ type: 'error', error: createInvalidStreamDataError(eventName) }];
    if (this.#stopped || this.#spliced) return [];
    const type = typeof parsed['type'] === 'string' ? parsed['type'] : eventName;
    switch (type) {
      case 'message_start':
        return this.#startMessage(parsed);
      case 'content_block_start':
        return this.#startBlock(parsed);
      case 'content_block_delta':
        return this.#applyDelta(parsed);
      case 'content_block_stop':
        return this.#stopBlock(parsed['index']);
      case 'message_delta':
        return this.#applyMessageDelta(parsed);
      case 'message_stop':
        return this.#stopMessage();
      default:
        // `ping` and event types newer than this adapter carry nothing we model.
        return [];
    }
  }

  /** The last item of every decoded stream. */
  end(): StreamEnd {
    return { type: 'stream-end', terminalFrameSeen: this.#terminalFrameSeen };
  }

  #startMessage(event: NativeRecord): DecodedStreamEvent[] {
    const message = isRecord(event['message']) ? event['message'] : {};
    const id = typeof message['id'] === 'string' ? message['id'] : undefined;
    if (this.#messageStarted) {
      // Quirk (fixture duplicate-message-start): some upstreams repeat message_start for the open
      // message. vercel/ai ignores the repeat ("ignores a duplicate message_start for the
      // already-open message"): no second metadata, no reset of content already emitted.
      if (id === this.#messageId) return [];
      // A different message spliced into the open one: vercel/ai fails the stream with an error
      // and takes nothing from the second message; so do we.
      this.#spliced = true;
      return [{ type: 'error', error: createInvalidStreamDataError('message_start').with({ message: 'Messages stream: a second message started before message_stop' }) }];
    }
    this.#messageStarted = true;
    this.#messageId = id;
    const events: DecodedStreamEvent[] = [
      { type: 'response-metadata', responseId: id, model: typeof message['model'] === 'string' ? message['model'] : undefined },
    ];
    if (isRecord(message['usage'])) {
      this.#nativeUsage = mergeMessagesUsage({}, message['usage']);
      events.push({ type: 'usage', usage: convertMessagesUsage(this.#nativeUsage) });
    }
    return events;
  }

  #startBlock(event: NativeRecord): DecodedStreamEvent[] {
    const index = event['index'];
    const block = event['content_block'];
    if (typeof index !== 'number' || !isRecord(block) || this.#blocks.has(index)) return [];
    const id = String(index);
    switch (block['type']) {
      case 'text': {
        this.#blocks.set(index, { kind: 'text', id });
        const text = typeof block['text'] === 'string' ? block['text'] : '';
        return text === '' ? [{ type: 'text-start', id }] : [{ type: 'text-start', id }, { type: 'text-delta', id, delta: text }];
      }
      case 'thinking': {
        const signature = typeof block['signature'] === 'string' && block['signature'] !== '' ? block['signature'] : undefined;
        this.#blocks.set(index, { kind: 'reasoning', id, signature });
        const thinking = typeof block['thinking'] === 'string' ? block['thinking'] : '';
        return thinking === ''
          ? [{ type: 'reasoning-start', id }]
          : [{ type: 'reasoning-start', id }, { type: 'reasoning-delta', id, delta: thinking }];
      }
      case 'redacted_thinking': {
        // One start with the whole opaque block, no deltas (vercel/ai "should stream redacted reasoning").
        const data = typeof block['data'] === 'string' ? block['data'] : '';
        this.#blocks.set(index, { kind: 'redacted', id, data });
        return [{ type: 'reasoning-start', id, redacted: true, encrypted: data }];
      }
      case 'tool_use': {
        if (typeof block['id'] !== 'string' || typeof block['name'] !== 'string') return [];
        this.#blocks.set(index, { kind: 'tool', toolCallId: block['id'], toolName: block['name'], inputParts: [], initialInput: block['input'] });
        return [{ type: 'tool-call-start', toolCallId: block['id'], toolName: block['name'] }];
      }
      default:
        this.#blocks.set(index, { kind: 'ignored' });
        return [];
    }
  }

  #applyDelta(event: NativeRecord): DecodedStreamEvent[] {
    const index = event['index'];
    const delta = event['delta'];
    const block = typeof index === 'number' ? this.#blocks.get(index) : undefined;
    if (block === undefined || !isRecord(delta)) return [];
    switch (delta['type']) {
      case 'text_delta':
        return block.kind === 'text' && typeof delta['text'] === 'string' && delta['text'] !== ''
          ? [{ type: 'text-delta', id: block.id, delta: delta['text'] }]
          : [];
      case 'thinking_delta':
        return block.kind === 'reasoning' && typeof delta['thinking'] === 'string' && delta['thinking'] !== ''
          ? [{ type: 'reasoning-delta', id: block.id, delta: delta['thinking'] }]
          : [];
      case 'signature_delta':
        // The SDK accumulator sets the signature, it does not append (src/lib/MessageStream.ts).
        if (block.kind === 'reasoning' && typeof delta['signature'] === 'string') block.signature = delta['signature'];
        return [];
      case 'input_json_delta': {
        if (block.kind !== 'tool' || typeof delta['partial_json'] !== 'string' || delta['partial_json'] === '') return [];
        block.inputParts.push(delta['partial_json']);
        return [{ type: 'tool-call-delta', toolCallId: block.toolCallId, delta: delta['partial_json'] }];
      }
      default:
        // citations_delta and newer delta types have no neutral form.
        return [];
    }
  }

  #stopBlock(index: unknown): DecodedStreamEvent[] {
    const block = typeof index === 'number' ? this.#blocks.get(index) : undefined;
    if (block === undefined) return [];
    this.#blocks.delete(index as number);
    return this.#endEventsOf(block);
  }

  #endEventsOf(block: OpenBlock): DecodedStreamEvent[] {
    switch (block.kind) {
      case 'text':
        return [{ type: 'text-end', id: block.id }];
      case 'reasoning':
        return [block.signature === undefined ? { type: 'reasoning-end', id: block.id } : { type: 'reasoning-end', id: block.id, signature: block.signature }];
      case 'redacted':
        return [{ type: 'reasoning-end', id: block.id, encrypted: block.data }];
      case 'tool':
        return [{ type: 'tool-call-end', toolCallId: block.toolCallId, toolName: block.toolName, input: joinToolInput(block) }];
      case 'ignored':
        return [];
      default: {
        const _exhaustive: never = block;
        return _exhaustive;
      }
    }
  }

  #applyMessageDelta(event: NativeRecord): DecodedStreamEvent[] {
    const delta = isRecord(event['delta']) ? event['delta'] : {};
    if (typeof delta['stop_reason'] === 'string') this.#stopReason = delta['stop_reason'];
    if (!isRecord(event['usage'])) return [];
    this.#nativeUsage = mergeMessagesUsage(this.#nativeUsage, event['usage']);
    return [{ type: 'usage', usage: convertMessagesUsage(this.#nativeUsage) }];
  }

  #stopMessage(): DecodedStreamEvent[] {
    this.#stopped = true;
    // Blocks a sloppy upstream left open end with the message.
    const events = [...this.#blocks.values()].flatMap((block) => this.#endEventsOf(block));
    this.#blocks.clear();
    if (this.#stopReason === undefined) return events;
    this.#terminalFrameSeen = true;
    events.push({ type: 'finish', finishReason: mapMessagesStopReason(this.#stopReason) });
    return events;
  }
}

/**
 * The tool's argument text as streamed. A no-argument call streams only
 * `partial_json: ""` (fixture anthropic-tool-no-args); the SDK reads the empty
 * buffer as `{}` (src/internal/message-stream-utils.ts), so do we. A start
 * block that already carried a non-empty input and got no deltas keeps it.
 */
function joinToolInput(block: { inputParts: string[]; initialInput: unknown }): string {
  const joined = block.inputParts.join('');
  if (joined !== '') return joined;
  return isRecord(block.initialInput) && Object.keys(block.initialInput).length > 0 ? JSON.stringify(block.initialInput) : '{}';
}

/** Bytes of a Messages SSE body → neutral events, ending with `stream-end` (R7.2). */
export async function* decodeMessagesStream(body: ReadableStream<Uint8Array>): AsyncGenerator<DecodedStreamEvent> {
  const decoder = new MessagesStreamDecoder();
  for await (const record of readSseEvents(body)) {
    yield* decoder.decodeRecord(record.event, record.data);
  }
  yield decoder.end();
}
