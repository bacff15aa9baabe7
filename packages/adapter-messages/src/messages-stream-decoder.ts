import { decodeSseStream, RecordTemplate, TemplateLearningBudget, type DecodedStreamEvent, type SseRecordDecoder, type StreamEnd, type ByteStream, type DecodeStreamOptions } from '@turnguard/core';
import { classifyMessagesStreamError, createInvalidStreamDataError } from './classify-messages-error.js';
import { convertMessagesUsage, mergeMessagesUsage } from './convert-messages-usage.js';
import { mapMessagesStopReason } from './map-messages-stop-reason.js';
import { isRecord, type NativeRecord } from './messages-types.js';

type OpenBlock =
  | { kind: 'text'; id: string }
  | { kind: 'reasoning'; id: string; signature: string | undefined }
  | { kind: 'redacted'; id: string; data: string }
  | { kind: 'tool'; toolCallId: string; toolName: string; inputParts: string[]; initialInput: unknown }
  /** Server tool blocks, citations containers…: no neutral event; their deltas are skipped. */
  | { kind: 'ignored' };

interface DeltaTemplate {
  template: RecordTemplate;
  eventName: string | undefined;
  index: number;
  blockKind: 'text' | 'reasoning';
}

const TEXT_DELTA = { valueKey: 'text', blockKind: 'text' } as const;
const THINKING_DELTA = { valueKey: 'thinking', blockKind: 'reasoning' } as const;

/**
 * Messages SSE records → neutral events (R7.2), one record at a time. Pure
 * state machine; `decodeMessagesStream` feeds it from bytes.
 *
 * Terminal frame: `message_delta` with a `stop_reason` (then `message_stop`,
 * SPEC "terminal frame"). `finish` is emitted at that `message_delta`: the
 * answer is complete there, and a stream that then ends without its
 * `message_stop` — cleanly, by FIN or by RST — is complete, never a cut
 * (R8.12); the gateway supplies the missing `message_stop` (R8.13).
 * Everything after it is ignored, `message_stop` included.
 */
export class MessagesStreamDecoder {
  #messageId: string | undefined;
  #messageStarted = false;
  /** A second, different message started inside the first: nothing after it is trusted. */
  #spliced = false;
  #stopped = false;
  #nativeUsage: NativeRecord = {};
  #terminalFrameSeen = false;
  /** Any tool-use block started, modelled or not (server_tool_use, mcp_tool_use…): R4.1. */
  #toolCallSeen = false;
  readonly #blocks = new Map<number, OpenBlock>();
  /** The stream's repetitive text/thinking delta record, so its next ones skip JSON.parse (decision 0320). */
  #delta: DeltaTemplate | undefined;
  readonly #learning: TemplateLearningBudget;

  /** `learnRecordShapes: false` turns the template fast path off (the reference its tests compare with). */
  constructor(options: { learnRecordShapes?: boolean } = {}) {
    this.#learning = new TemplateLearningBudget(options.learnRecordShapes !== false);
  }

  /** One SSE record → the neutral events it stands for (often none). Never throws. */
  decodeRecord(eventName: string | undefined, data: string): DecodedStreamEvent[] {
    const events: DecodedStreamEvent[] = [];
    this.pushRecordEvents(eventName, data, events);
    return events;
  }

  /**
   * `decodeRecord` appending to the caller's array (the stream decoder's
   * per-read batch), so a record allocates only the events it stands for.
   */
  pushRecordEvents(eventName: string | undefined, data: string, events: DecodedStreamEvent[]): void {
    const learned = this.#delta;
    if (learned !== undefined && eventName === learned.eventName) {
      const value = learned.template.matchValue(data);
      if (value !== undefined) {
        this.#learning.earn();
        this.#pushLearnedDelta(learned, value, events);
        return;
      }
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      parsed = undefined;
    }
    // anthropic-sdk-typescript Stream.fromSSEResponse: `event: error` is an APIError whatever the data holds.
    if (eventName === 'error' || (isRecord(parsed) && parsed['type'] === 'error')) {
      events.push({ type: 'error', error: classifyMessagesStreamError(data) });
      return;
    }
    if (eventName === 'ping') return;
    if (!isRecord(parsed)) {
      events.push({ type: 'error', error: createInvalidStreamDataError(eventName) });
      return;
    }
    if (this.#stopped || this.#spliced) return;
    const type = typeof parsed['type'] === 'string' ? parsed['type'] : eventName;
    switch (type) {
      case 'message_start':
        return this.#startMessage(parsed, events);
      case 'content_block_start':
        return this.#startBlock(parsed, events);
      case 'content_block_delta':
        if (this.#learning.open) this.#learnDeltaTemplate(eventName, data, parsed);
        return this.#applyDelta(parsed, events);
      case 'content_block_stop':
        return this.#stopBlock(parsed['index'], events);
      case 'message_delta':
        return this.#applyMessageDelta(parsed, events);
      case 'message_stop':
        return this.#stopMessage(events);
      default:
        // `ping` and event types newer than this adapter carry nothing we model.
        return;
    }
  }

  /** The last item of every decoded stream. */
  end(): StreamEnd {
    return this.#toolCallSeen
      ? { type: 'stream-end', terminalFrameSeen: this.#terminalFrameSeen, toolCallSeen: true }
      : { type: 'stream-end', terminalFrameSeen: this.#terminalFrameSeen };
  }

  /**
   * What `#applyDelta` does for a record of the learned shape: everything but
   * the value is the learned record's constant text (type, index, delta type).
   */
  #pushLearnedDelta(learned: DeltaTemplate, value: string, events: DecodedStreamEvent[]): void {
    if (this.#stopped || this.#spliced) return;
    const block = this.#blocks.get(learned.index);
    if (block?.kind !== learned.blockKind) return;
    events.push(block.kind === 'text' ? { type: 'text-delta', id: block.id, delta: value } : { type: 'reasoning-delta', id: block.id, delta: value });
  }

  #learnDeltaTemplate(eventName: string | undefined, data: string, parsed: NativeRecord): void {
    const index = parsed['index'];
    const delta = parsed['delta'];
    if (eventName === 'error' || eventName === 'ping' || parsed['type'] !== 'content_block_delta') return;
    if (typeof index !== 'number' || !isRecord(delta)) return;
    const shape = delta['type'] === 'text_delta' ? TEXT_DELTA : delta['type'] === 'thinking_delta' ? THINKING_DELTA : undefined;
    if (shape === undefined || typeof delta[shape.valueKey] !== 'string' || delta[shape.valueKey] === '') return;
    if (!this.#learning.take()) return;
    const template = RecordTemplate.learn(data, {
      valueKey: shape.valueKey,
      readValue: (probed) => (isRecord(probed) && isRecord(probed['delta']) ? probed['delta'][shape.valueKey] : undefined),
    });
    if (template !== undefined) this.#delta = { template, eventName, index, blockKind: shape.blockKind };
  }

  #startMessage(event: NativeRecord, events: DecodedStreamEvent[]): void {
    const message = isRecord(event['message']) ? event['message'] : {};
    const id = typeof message['id'] === 'string' ? message['id'] : undefined;
    if (this.#messageStarted) {
      // Quirk (fixture duplicate-message-start): some upstreams repeat message_start for the open
      // message. vercel/ai ignores the repeat ("ignores a duplicate message_start for the
      // already-open message"): no second metadata, no reset of content already emitted.
      if (id === this.#messageId) return;
      // A different message spliced into the open one: vercel/ai fails the stream with an error
      // and takes nothing from the second message; so do we.
      this.#spliced = true;
      events.push({ type: 'error', error: createInvalidStreamDataError('message_start').with({ message: 'Messages stream: a second message started before message_stop' }) });
      return;
    }
    this.#messageStarted = true;
    this.#messageId = id;
    events.push({ type: 'response-metadata', responseId: id, model: typeof message['model'] === 'string' ? message['model'] : undefined });
    if (isRecord(message['usage'])) {
      this.#nativeUsage = mergeMessagesUsage({}, message['usage']);
      events.push({ type: 'usage', usage: convertMessagesUsage(this.#nativeUsage) });
    }
  }

  #startBlock(event: NativeRecord, events: DecodedStreamEvent[]): void {
    const index = event['index'];
    const block = event['content_block'];
    if (typeof index !== 'number' || !isRecord(block) || this.#blocks.has(index)) return;
    const id = String(index);
    switch (block['type']) {
      case 'text': {
        this.#blocks.set(index, { kind: 'text', id });
        const text = typeof block['text'] === 'string' ? block['text'] : '';
        events.push({ type: 'text-start', id });
        if (text !== '') events.push({ type: 'text-delta', id, delta: text });
        return;
      }
      case 'thinking': {
        const signature = typeof block['signature'] === 'string' && block['signature'] !== '' ? block['signature'] : undefined;
        this.#blocks.set(index, { kind: 'reasoning', id, signature });
        const thinking = typeof block['thinking'] === 'string' ? block['thinking'] : '';
        events.push({ type: 'reasoning-start', id });
        if (thinking !== '') events.push({ type: 'reasoning-delta', id, delta: thinking });
        return;
      }
      case 'redacted_thinking': {
        // One start with the whole opaque block, no deltas (vercel/ai "should stream redacted reasoning").
        const data = typeof block['data'] === 'string' ? block['data'] : '';
        this.#blocks.set(index, { kind: 'redacted', id, data });
        events.push({ type: 'reasoning-start', id, redacted: true, encrypted: data });
        return;
      }
      case 'tool_use': {
        this.#toolCallSeen = true;
        if (typeof block['id'] !== 'string' || typeof block['name'] !== 'string') return;
        this.#blocks.set(index, { kind: 'tool', toolCallId: block['id'], toolName: block['name'], inputParts: [], initialInput: block['input'] });
        events.push({ type: 'tool-call-start', toolCallId: block['id'], toolName: block['name'] });
        return;
      }
      default:
        // Server-side and MCP tool calls are not handed to the host, but they are tool calls (R4.1).
        if (typeof block['type'] === 'string' && block['type'].endsWith('tool_use')) this.#toolCallSeen = true;
        this.#blocks.set(index, { kind: 'ignored' });
        return;
    }
  }

  #applyDelta(event: NativeRecord, events: DecodedStreamEvent[]): void {
    const index = event['index'];
    const delta = event['delta'];
    const block = typeof index === 'number' ? this.#blocks.get(index) : undefined;
    if (block === undefined || !isRecord(delta)) return;
    switch (delta['type']) {
      case 'text_delta':
        if (block.kind === 'text' && typeof delta['text'] === 'string' && delta['text'] !== '') {
          events.push({ type: 'text-delta', id: block.id, delta: delta['text'] });
        }
        return;
      case 'thinking_delta':
        if (block.kind === 'reasoning' && typeof delta['thinking'] === 'string' && delta['thinking'] !== '') {
          events.push({ type: 'reasoning-delta', id: block.id, delta: delta['thinking'] });
        }
        return;
      case 'signature_delta':
        // The SDK accumulator sets the signature, it does not append (src/lib/MessageStream.ts).
        if (block.kind === 'reasoning' && typeof delta['signature'] === 'string') block.signature = delta['signature'];
        return;
      case 'input_json_delta': {
        if (block.kind !== 'tool' || typeof delta['partial_json'] !== 'string' || delta['partial_json'] === '') return;
        block.inputParts.push(delta['partial_json']);
        events.push({ type: 'tool-call-delta', toolCallId: block.toolCallId, delta: delta['partial_json'] });
        return;
      }
      default:
        // citations_delta and newer delta types have no neutral form.
        return;
    }
  }

  #stopBlock(index: unknown, events: DecodedStreamEvent[]): void {
    const block = typeof index === 'number' ? this.#blocks.get(index) : undefined;
    if (block === undefined) return;
    this.#blocks.delete(index as number);
    this.#pushEndEventOf(block, events);
  }

  #pushEndEventOf(block: OpenBlock, events: DecodedStreamEvent[]): void {
    switch (block.kind) {
      case 'text':
        events.push({ type: 'text-end', id: block.id });
        return;
      case 'reasoning':
        events.push(block.signature === undefined ? { type: 'reasoning-end', id: block.id } : { type: 'reasoning-end', id: block.id, signature: block.signature });
        return;
      case 'redacted':
        events.push({ type: 'reasoning-end', id: block.id, encrypted: block.data });
        return;
      case 'tool':
        events.push({ type: 'tool-call-end', toolCallId: block.toolCallId, toolName: block.toolName, input: joinToolInput(block) });
        return;
      case 'ignored':
        return;
      default: {
        const _exhaustive: never = block;
        return _exhaustive;
      }
    }
  }

  #applyMessageDelta(event: NativeRecord, events: DecodedStreamEvent[]): void {
    const delta = isRecord(event['delta']) ? event['delta'] : {};
    const stopReason = typeof delta['stop_reason'] === 'string' ? delta['stop_reason'] : undefined;
    // Blocks a sloppy upstream left open end with the message.
    if (stopReason !== undefined) this.#endOpenBlocks(events);
    if (isRecord(event['usage'])) {
      this.#nativeUsage = mergeMessagesUsage(this.#nativeUsage, event['usage']);
      events.push({ type: 'usage', usage: convertMessagesUsage(this.#nativeUsage) });
    }
    if (stopReason === undefined) return;
    this.#stopped = true;
    this.#terminalFrameSeen = true;
    events.push({ type: 'finish', finishReason: mapMessagesStopReason(stopReason) });
  }

  /** `message_stop` with no `message_delta` carrying a stop_reason before it: the message ends without a terminal frame. */
  #stopMessage(events: DecodedStreamEvent[]): void {
    this.#stopped = true;
    this.#endOpenBlocks(events);
  }

  #endOpenBlocks(events: DecodedStreamEvent[]): void {
    for (const block of this.#blocks.values()) this.#pushEndEventOf(block, events);
    this.#blocks.clear();
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

/**
 * Bytes of a Messages SSE body → neutral events, ending with `stream-end` (R7.2).
 * Core's `decodeSseStream` decodes each network read's records into one batch
 * and serves it without an async-generator step per event (decision 0320).
 * UTF-8 is decoded in streaming mode; a record not closed by a blank line
 * when the body ends is dropped, as the SSE spec says: the stream was cut
 * inside it (anthropic-sdk-typescript src/core/streaming.ts reads it the same
 * way). Errors of the body stream itself propagate, after earlier events.
 */
export function decodeMessagesStream(body: ByteStream, options: DecodeStreamOptions = {}): AsyncGenerator<DecodedStreamEvent> {
  return decodeSseStream<DecodedStreamEvent>(body, { decoder: new MessagesSseDecoder(), lastRecord: 'drop', records: options.records });
}

/** The per-stream decoder handed to core's iterator. */
class MessagesSseDecoder implements SseRecordDecoder<DecodedStreamEvent> {
  readonly #decoder = new MessagesStreamDecoder();

  pushRecordEvents(eventName: string | undefined, data: string, events: DecodedStreamEvent[]): void {
    this.#decoder.pushRecordEvents(eventName, data, events);
  }

  pushEndEvents(events: DecodedStreamEvent[]): void {
    events.push(this.#decoder.end());
  }
}
