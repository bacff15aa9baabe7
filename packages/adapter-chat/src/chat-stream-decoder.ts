import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { TurnError, type DecodedStreamEvent, type TurnEvent } from '@turnguard/core';
import { isRecord } from './chat-wire-hints.js';
import { ChatToolCallAssembler } from './chat-tool-call-assembler.js';
import { classifyChatStreamError } from './classify-chat-error.js';
import { convertChatUsage } from './convert-chat-usage.js';
import { mapChatFinishReason } from './map-chat-finish-reason.js';

/**
 * Chat SSE bytes → neutral events, incrementally (R7.2): bytes → SSE records
 * (eventsource-parser) → `chat.completion.chunk` payloads → events. Never
 * buffers the body. The last item is `{type:'stream-end', terminalFrameSeen}`;
 * the terminal frame is a choice with a non-null `finish_reason` — `[DONE]`
 * alone is not one (SPEC "terminal frame"). Bad data becomes an `error`
 * event; a failure of the body stream itself is thrown.
 */
export async function* decodeChatStream(body: ReadableStream<Uint8Array>): AsyncGenerator<DecodedStreamEvent> {
  const decoder = new ChatChunkDecoder();
  const records: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (record) => records.push(record) });
  const textDecoder = new TextDecoder();
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(textDecoder.decode(value, { stream: true }));
      while (records.length > 0) yield* decoder.handleRecord(records.shift()!, false);
    }
    finished = true;
    // A last record without its blank line still counts (openai-node flushes its line decoder too).
    parser.feed(textDecoder.decode());
    parser.feed('\n\n');
    while (records.length > 0) yield* decoder.handleRecord(records.shift()!, true);
    yield* decoder.finish();
  } finally {
    // The consumer stopped early: release the upstream body.
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

type BlockKind = 'text' | 'reasoning';

/** Per-segment decoding state: one instance per response body. */
export class ChatChunkDecoder {
  private readonly toolCalls = new ChatToolCallAssembler();
  private openBlock: { kind: BlockKind; id: string } | undefined;
  private blockCount = 0;
  private metadataSent = false;
  private terminalFrameSeen = false;
  private doneSeen = false;

  handleRecord(record: EventSourceMessage, atEndOfBody: boolean): TurnEvent[] {
    if (this.doneSeen) return [];
    const data = record.data.trim();
    if (data === '[DONE]') {
      this.doneSeen = true;
      return [];
    }
    let payload: unknown;
    try {
      payload = JSON.parse(data);
    } catch {
      // A record cut off by the end of the body is a cut stream, not a malformed chunk.
      if (atEndOfBody) return [];
      // No `cause`: V8's SyntaxError quotes the chunk, which may hold model text (R4.10).
      return [{ type: 'error', error: malformedChunk(`undecodable chunk (${data.length} chars)`) }];
    }
    // openai-node Stream.fromSSEResponse: `event: error`, or any payload with a truthy `error`.
    if (record.event === 'error' || (isRecord(payload) && (Boolean(payload.error) || payload.object === 'error'))) {
      return [{ type: 'error', error: classifyChatStreamError(payload) }];
    }
    if (!isRecord(payload)) {
      return [{ type: 'error', error: malformedChunk('chunk is not a JSON object') }];
    }
    return this.handleChunk(payload);
  }

  finish(): DecodedStreamEvent[] {
    // Unfinished tool calls get no end event: their arguments may be cut (R3.13).
    return [...this.closeBlock(), { type: 'stream-end', terminalFrameSeen: this.terminalFrameSeen }];
  }

  private handleChunk(chunk: Record<string, unknown>): TurnEvent[] {
    const events: TurnEvent[] = [...this.readMetadata(chunk)];
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    // Neutral events have one response: read choice 0 (what `n` defaults to).
    const choice = choices.find((entry) => isRecord(entry) && (entry.index ?? 0) === 0);
    let finishReason: string | undefined;
    if (isRecord(choice) && !this.terminalFrameSeen) {
      if (isRecord(choice.delta)) events.push(...this.readDelta(choice.delta));
      if (typeof choice.finish_reason === 'string' && choice.finish_reason !== '') finishReason = choice.finish_reason;
    }
    if (finishReason !== undefined) {
      this.terminalFrameSeen = true;
      events.push(...this.closeBlock(), ...this.toolCalls.endCalls());
    }
    // OpenAI sends usage on a chunk with empty `choices`; DeepSeek and Groq on the finish chunk.
    if (isRecord(chunk.usage)) events.push({ type: 'usage', usage: convertChatUsage(chunk.usage) });
    if (finishReason !== undefined) events.push({ type: 'finish', finishReason: mapChatFinishReason(finishReason) });
    return events;
  }

  private readMetadata(chunk: Record<string, unknown>): TurnEvent[] {
    if (this.metadataSent) return [];
    const metadata: Extract<TurnEvent, { type: 'response-metadata' }> = { type: 'response-metadata' };
    if (typeof chunk.id === 'string' && chunk.id !== '') metadata.responseId = chunk.id;
    if (typeof chunk.model === 'string' && chunk.model !== '') metadata.model = chunk.model;
    if (typeof chunk.created === 'number') metadata.createdAt = chunk.created;
    if (Object.keys(metadata).length === 1) return [];
    this.metadataSent = true;
    return [metadata];
  }

  private readDelta(delta: Record<string, unknown>): TurnEvent[] {
    const events: TurnEvent[] = [];
    const reasoning = readReasoningText(delta.reasoning_content ?? delta.reasoning);
    if (reasoning !== '') events.push(...this.appendToBlock('reasoning', reasoning));
    if (typeof delta.content === 'string' && delta.content !== '') events.push(...this.appendToBlock('text', delta.content));
    // A refusal is model output the host must see; the neutral events carry it as text.
    if (typeof delta.refusal === 'string' && delta.refusal !== '') events.push(...this.appendToBlock('text', delta.refusal));
    if (Array.isArray(delta.tool_calls)) {
      for (const fragment of delta.tool_calls) {
        const toolEvents = this.toolCalls.addFragment(fragment);
        if (toolEvents.some((event) => event.type === 'tool-call-start')) events.push(...this.closeBlock());
        events.push(...toolEvents);
      }
    }
    return events;
  }

  private appendToBlock(kind: BlockKind, delta: string): TurnEvent[] {
    const events: TurnEvent[] = [];
    if (this.openBlock?.kind !== kind) {
      events.push(...this.closeBlock());
      this.openBlock = { kind, id: `${kind}-${this.blockCount++}` };
      events.push(kind === 'text' ? { type: 'text-start', id: this.openBlock.id } : { type: 'reasoning-start', id: this.openBlock.id });
    }
    const id = this.openBlock.id;
    events.push(kind === 'text' ? { type: 'text-delta', id, delta } : { type: 'reasoning-delta', id, delta });
    return events;
  }

  private closeBlock(): TurnEvent[] {
    const block = this.openBlock;
    if (block === undefined) return [];
    this.openBlock = undefined;
    return [block.kind === 'text' ? { type: 'text-end', id: block.id } : { type: 'reasoning-end', id: block.id }];
  }
}

/**
 * `delta.reasoning_content ?? delta.reasoning` (vercel/ai openai-compatible),
 * as a string, `{text}` or `{content}` (codex-rs/codex-api/src/sse/chat.rs).
 */
function readReasoningText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (isRecord(value)) {
    if (typeof value.text === 'string') return value.text;
    if (typeof value.content === 'string') return value.content;
  }
  return '';
}

function malformedChunk(message: string): TurnError {
  return new TurnError({ kind: 'server', code: 'MALFORMED_CHUNK', message });
}
