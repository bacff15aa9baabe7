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
  // One array reused for every read: the parser callback decodes each record
  // into it, then this one generator yields its items from a plain loop. A
  // nested generator or a `yield*` per record cost more than the decoding
  // itself (bench/README.md, "decode").
  const events: DecodedStreamEvent[] = [];
  let atEndOfBody = false;
  const parser = createParser({ onEvent: (record) => decoder.pushRecordEvents(record, atEndOfBody, events) });
  const textDecoder = new TextDecoder();
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(textDecoder.decode(value, { stream: true }));
      for (let index = 0; index < events.length; index += 1) yield events[index]!;
      events.length = 0;
    }
    finished = true;
    atEndOfBody = true;
    // A last record without its blank line still counts (openai-node flushes its line decoder too).
    parser.feed(textDecoder.decode());
    parser.feed('\n\n');
    decoder.pushEndEvents(events);
    for (let index = 0; index < events.length; index += 1) yield events[index]!;
    events.length = 0;
  } finally {
    // The consumer stopped early: release the upstream body.
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
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

  handleRecord(record: EventSourceMessage, atEndOfBody: boolean): TurnEvent[] {
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
  pushRecordEvents(record: EventSourceMessage, atEndOfBody: boolean, events: DecodedStreamEvent[]): void {
    if (this.doneSeen) return;
    const data = record.data.trim();
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
    if (record.event === 'error' || (isRecord(payload) && (Boolean(payload.error) || payload.object === 'error'))) {
      events.push({ type: 'error', error: classifyChatStreamError(payload) });
      return;
    }
    if (!isRecord(payload)) {
      events.push({ type: 'error', error: malformedChunk('chunk is not a JSON object') });
      return;
    }
    this.pushChunkEvents(payload, events);
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
    const metadata: Extract<TurnEvent, { type: 'response-metadata' }> = { type: 'response-metadata' };
    let known = false;
    if (typeof chunk.id === 'string' && chunk.id !== '') {
      metadata.responseId = chunk.id;
      known = true;
    }
    if (typeof chunk.model === 'string' && chunk.model !== '') {
      metadata.model = chunk.model;
      known = true;
    }
    if (typeof chunk.created === 'number') {
      metadata.createdAt = chunk.created;
      known = true;
    }
    if (!known) return;
    this.metadataSent = true;
    events.push(metadata);
  }

  private pushDeltaEvents(delta: Record<string, unknown>, events: DecodedStreamEvent[]): void {
    const reasoning = readReasoningText(delta.reasoning_content ?? delta.reasoning);
    if (reasoning !== '') this.appendToBlock('reasoning', reasoning, events);
    if (typeof delta.content === 'string' && delta.content !== '') this.appendToBlock('text', delta.content, events);
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

/** The choice with `index` 0 (absent counts as 0), without a closure per chunk. */
function findFirstChoice(choices: unknown): Record<string, unknown> | undefined {
  if (!Array.isArray(choices)) return undefined;
  for (const entry of choices) {
    if (isRecord(entry) && (entry.index ?? 0) === 0) return entry;
  }
  return undefined;
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
