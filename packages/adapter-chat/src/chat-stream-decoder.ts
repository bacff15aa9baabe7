import { decodeSseStream, TemplateLearningBudget, TurnError, type DecodedStreamEvent, type SseRecord, type SseRecordDecoder, type TurnEvent, type ByteStream, type DecodeStreamOptions } from '@turnguard/core';
import { isRecord } from './chat-wire-hints.js';
import { findFirstChoice, learnChatDeltaTemplate, readReasoningText, type ChatDeltaTemplate } from './chat-delta-template.js';
import { readTypedContentPart } from './chat-content-parts.js';
import { ChatToolCallAssembler } from './chat-tool-call-assembler.js';
import { classifyChatStreamError } from './classify-chat-error.js';
import { convertChatUsage } from './convert-chat-usage.js';
import { mapChatFinishReason } from './map-chat-finish-reason.js';

/**
 * Chat SSE bytes → neutral events, incrementally (R7.2): bytes → SSE records
 * (core's SseFramer, decision 0320) → `chat.completion.chunk` payloads → events. Never
 * buffers the body. The last item is `{type:'stream-end', terminalFrameSeen}`;
 * the terminal frame is a choice with a non-null `finish_reason` — `[DONE]`
 * alone is not one (SPEC "terminal frame"). Bad data becomes an `error`
 * event; a failure of the body stream itself is thrown.
 */
export function decodeChatStream(body: ByteStream, options: DecodeStreamOptions = {}): AsyncGenerator<DecodedStreamEvent> {
  // Core's decodeSseStream: each read's records are decoded into one reused
  // batch that `next()` serves without an async-generator step per event
  // (`node bench/decode/run.mjs`; decision 0320).
  return decodeSseStream<DecodedStreamEvent>(body, {
    decoder: new ChatSseDecoder(),
    // A last record without its blank line still counts (openai-node flushes its line decoder too).
    lastRecord: 'always',
    records: options.records,
  });
}

type BlockKind = 'text' | 'reasoning';

/**
 * Per-segment decoding state: one instance per response body. The `push*`
 * methods append to the caller's array (the stream decoder's per-read batch)
 * so a chunk allocates only the events it stands for; `handleRecord` and
 * `finish` return fresh arrays for callers that want one.
 */
export class ChatChunkDecoder {
  private readonly toolCalls = new ChatToolCallAssembler();
  private openBlock: { kind: BlockKind; id: string } | undefined;
  private blockCount = 0;
  private metadataSent = false;
  private terminalFrameSeen = false;
  private doneSeen = false;
  /** The stream's repetitive delta chunk, so its next ones skip JSON.parse (decision 0320). */
  private deltaTemplate: ChatDeltaTemplate | undefined;
  private readonly learning: TemplateLearningBudget;

  /** `learnRecordShapes: false` turns the template fast path off (the reference its tests compare with). */
  constructor(options: { learnRecordShapes?: boolean } = {}) {
    this.learning = new TemplateLearningBudget(options.learnRecordShapes !== false);
  }

  handleRecord(record: SseRecord, atEndOfBody: boolean): TurnEvent[] {
    const events: TurnEvent[] = [];
    this.pushRecordEvents(record, atEndOfBody, events);
    return events;
  }

  finish(): DecodedStreamEvent[] {
    const events: DecodedStreamEvent[] = [];
    this.pushEndEvents(events);
    return events;
  }

  /** One SSE record → its events, appended to `events`. Never throws. */
  pushRecordEvents(record: SseRecord, atEndOfBody: boolean, events: DecodedStreamEvent[]): void {
    this.pushFieldsEvents(record.event, record.data, atEndOfBody, events);
  }

  /** `pushRecordEvents` taking the record's fields, as core's SSE framer hands them over (no object per record). */
  pushFieldsEvents(eventName: string | undefined, rawData: string, atEndOfBody: boolean, events: DecodedStreamEvent[]): void {
    if (this.doneSeen) return;
    const data = rawData.trim();
    const learned = this.deltaTemplate;
    // The fast path: only when nothing but the delta could differ from the learned chunk's effect.
    if (learned !== undefined && this.metadataSent && eventName !== 'error') {
      const value = learned.template.matchValue(data);
      if (value !== undefined) {
        this.learning.earn();
        if (!this.terminalFrameSeen) this.appendToBlock(learned.kind, value, events);
        return;
      }
    }
    if (data === '[DONE]') {
      this.doneSeen = true;
      return;
    }
    let payload: unknown;
    try {
      payload = JSON.parse(data);
    } catch {
      // A record cut off by the end of the body is a cut stream, not a malformed chunk.
      if (atEndOfBody) return;
      // No `cause`: V8's SyntaxError quotes the chunk, which may hold model text (R4.10).
      events.push({ type: 'error', error: malformedChunk(`undecodable chunk (${data.length} chars)`) });
      return;
    }
    // openai-node Stream.fromSSEResponse: `event: error`, or any payload with a truthy `error`.
    if (eventName === 'error' || (isRecord(payload) && (Boolean(payload.error) || payload.object === 'error'))) {
      events.push({ type: 'error', error: classifyChatStreamError(payload) });
      return;
    }
    if (!isRecord(payload)) {
      events.push({ type: 'error', error: malformedChunk('chunk is not a JSON object') });
      return;
    }
    this.pushChunkEvents(payload, events);
    if (this.learning.open && this.metadataSent && !this.terminalFrameSeen) this.learnDeltaTemplate(data, payload);
  }

  private learnDeltaTemplate(data: string, payload: Record<string, unknown>): void {
    const choice = findFirstChoice(payload.choices);
    // Cheap pre-check: only a chunk with a delta string is worth lexing.
    if (choice === undefined || !isRecord(choice.delta) || !this.learning.take()) return;
    const learned = learnChatDeltaTemplate(data, payload);
    if (learned !== undefined) this.deltaTemplate = learned;
  }

  /** The stream's last events: the open block's end, then `stream-end`. */
  pushEndEvents(events: DecodedStreamEvent[]): void {
    // Unfinished tool calls get no end event: their arguments may be cut (R3.13).
    this.closeBlock(events);
    events.push(
      this.toolCalls.hasCalls
        ? { type: 'stream-end', terminalFrameSeen: this.terminalFrameSeen, toolCallSeen: true }
        : { type: 'stream-end', terminalFrameSeen: this.terminalFrameSeen },
    );
  }

  private pushChunkEvents(chunk: Record<string, unknown>, events: DecodedStreamEvent[]): void {
    if (!this.metadataSent) this.pushMetadata(chunk, events);
    // Neutral events have one response: read choice 0 (what `n` defaults to).
    const choice = findFirstChoice(chunk.choices);
    let finishReason: string | undefined;
    if (choice !== undefined && !this.terminalFrameSeen) {
      if (isRecord(choice.delta)) this.pushDeltaEvents(choice.delta, events);
      if (typeof choice.finish_reason === 'string' && choice.finish_reason !== '') finishReason = choice.finish_reason;
    }
    if (finishReason !== undefined) {
      this.terminalFrameSeen = true;
      this.closeBlock(events);
      this.toolCalls.pushEndEvents(events);
    }
    // OpenAI sends usage on a chunk with empty `choices`; DeepSeek and Groq on the finish chunk.
    if (isRecord(chunk.usage)) events.push({ type: 'usage', usage: convertChatUsage(chunk.usage) });
    if (finishReason !== undefined) events.push({ type: 'finish', finishReason: mapChatFinishReason(finishReason) });
  }

  private pushMetadata(chunk: Record<string, unknown>, events: DecodedStreamEvent[]): void {
    const responseId = typeof chunk.id === 'string' && chunk.id !== '' ? chunk.id : undefined;
    const model = typeof chunk.model === 'string' && chunk.model !== '' ? chunk.model : undefined;
    const createdAt = typeof chunk.created === 'number' ? chunk.created : undefined;
    if (responseId === undefined && model === undefined && createdAt === undefined) return;
    this.metadataSent = true;
    const metadata: Extract<TurnEvent, { type: 'response-metadata' }> = { type: 'response-metadata' };
    if (responseId !== undefined) metadata.responseId = responseId;
    if (model !== undefined) metadata.model = model;
    if (createdAt !== undefined) metadata.createdAt = createdAt;
    events.push(metadata);
  }

  private pushDeltaEvents(delta: Record<string, unknown>, events: DecodedStreamEvent[]): void {
    const reasoning = readReasoningText(delta.reasoning_content ?? delta.reasoning);
    if (reasoning !== '') this.appendToBlock('reasoning', reasoning, events);
    if (typeof delta.content === 'string') {
      if (delta.content !== '') this.appendToBlock('text', delta.content, events);
    } else if (Array.isArray(delta.content)) {
      this.pushTypedContentEvents(delta.content, events);
    }
    // A refusal is model output the host must see; the neutral events carry it as text.
    if (typeof delta.refusal === 'string' && delta.refusal !== '') this.appendToBlock('text', delta.refusal, events);
    if (Array.isArray(delta.tool_calls)) {
      for (const fragment of delta.tool_calls) {
        const firstToolEvent = events.length;
        const startedCall = this.toolCalls.pushFragmentEvents(fragment, events);
        // A starting tool call ends the open text/reasoning block first (rare: splice is fine here).
        if (startedCall && this.openBlock !== undefined) events.splice(firstToolEvent, 0, this.takeBlockEnd(this.openBlock));
      }
    }
  }

  /** Typed content parts (Mistral's text / thinking chunks), in their order; other part types carry nothing we show. */
  private pushTypedContentEvents(parts: unknown[], events: DecodedStreamEvent[]): void {
    for (const part of parts) {
      const piece = readTypedContentPart(part);
      if (piece !== undefined && piece.text !== '') this.appendToBlock(piece.kind, piece.text, events);
    }
  }

  private appendToBlock(kind: BlockKind, delta: string, events: DecodedStreamEvent[]): void {
    let block = this.openBlock;
    if (block?.kind !== kind) {
      this.closeBlock(events);
      block = { kind, id: `${kind}-${this.blockCount++}` };
      this.openBlock = block;
      events.push(kind === 'text' ? { type: 'text-start', id: block.id } : { type: 'reasoning-start', id: block.id });
    }
    const id = block.id;
    events.push(kind === 'text' ? { type: 'text-delta', id, delta } : { type: 'reasoning-delta', id, delta });
  }

  private closeBlock(events: DecodedStreamEvent[]): void {
    if (this.openBlock !== undefined) events.push(this.takeBlockEnd(this.openBlock));
  }

  private takeBlockEnd(block: { kind: BlockKind; id: string }): TurnEvent {
    this.openBlock = undefined;
    return block.kind === 'text' ? { type: 'text-end', id: block.id } : { type: 'reasoning-end', id: block.id };
  }
}

function malformedChunk(message: string): TurnError {
  return new TurnError({ kind: 'server', code: 'MALFORMED_CHUNK', message });
}

/** The per-stream decoder handed to core's iterator. */
class ChatSseDecoder implements SseRecordDecoder<DecodedStreamEvent> {
  readonly #decoder = new ChatChunkDecoder();
  #atEndOfBody = false;

  pushRecordEvents(eventName: string | undefined, data: string, events: DecodedStreamEvent[]): void {
    this.#decoder.pushFieldsEvents(eventName, data, this.#atEndOfBody, events);
  }

  pushEndEvents(events: DecodedStreamEvent[]): void {
    this.#decoder.pushEndEvents(events);
  }

  /** Records flushed from here on were cut by the end of the body: a bad one is not an error. */
  markBodyEnd(): void {
    this.#atEndOfBody = true;
  }
}
