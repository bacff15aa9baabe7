import { TurnError, type DecodedStreamEvent, type StreamEnd, type TurnEvent } from '@turnguard/core';
import { classifyResponsesStreamError } from './classify-responses-error.js';
import { convertResponsesUsage } from './convert-responses-usage.js';
import { mapResponsesFinishReason } from './map-responses-finish-reason.js';
import { isJsonObject, readNumber, readString, type JsonObject } from './native-json.js';

/**
 * The terminal events of a Responses stream (SPEC "terminal frame"). `response.done`
 * is sent by the ChatGPT/Codex backend instead (wire-formats §3.3, 3rd-party).
 * A lone `error` event is NOT terminal: real streams follow it with
 * `response.failed` (fixture `openai-error.1`), so a stream that ends right
 * after it is reported as cut, with the error event already emitted.
 */
const TERMINAL_EVENT_TYPES = new Set(['response.completed', 'response.incomplete', 'response.failed', 'response.done']);

/**
 * What was streamed of an open text block, in bounded memory: keeping the
 * whole text made retained heap grow with the stream (bench/decode, 20k →
 * 200k chunks: +4.6 MiB). The tail is enough to check that a `.done` text
 * extends what was streamed.
 */
interface SentText {
  length: number;
  tail: string;
}

const SENT_TAIL_CHARS = 64;
const NOTHING_SENT: SentText = { length: 0, tail: '' };

interface ToolCallState {
  toolCallId: string;
  toolName: string;
  input: string;
  ended: boolean;
}

/**
 * Maps parsed Responses SSE records to neutral events (R7.2), one record at a
 * time. Pure state machine: no I/O, never throws for bad data.
 */
export class ResponsesStreamEventMapper {
  private metadataEmitted = false;
  private terminalFrameSeen = false;
  private errorEmitted = false;
  private hasToolCall = false;
  /** Open text blocks: neutral id → what was streamed so far. */
  private readonly openTexts = new Map<string, SentText>();
  /** Open reasoning blocks by item id (the value is unused; the text itself is not kept). */
  private readonly openReasonings = new Map<string, string>();
  /** Tool calls by item id (deltas carry `item_id`, not `call_id`: wire-formats §3.2). */
  private readonly toolCalls = new Map<string, ToolCallState>();

  /** One SSE record (its `data` text) → neutral events. */
  mapRecord(data: string): DecodedStreamEvent[] {
    // Nothing after the terminal frame belongs to this response; openai-node
    // also tolerates a trailing `[DONE]` (wire-formats §3.1).
    if (this.terminalFrameSeen || data.trim() === '[DONE]') return [];
    let payload: unknown;
    try {
      payload = JSON.parse(data);
    } catch (cause) {
      return [this.createUndecodableChunkError('not JSON', cause)];
    }
    if (!isJsonObject(payload)) return [this.createUndecodableChunkError('not a JSON object', undefined)];
    return this.mapEvent(payload);
  }

  /** The last item of the stream (R7.2). */
  end(): StreamEnd {
    return { type: 'stream-end', terminalFrameSeen: this.terminalFrameSeen };
  }

  private mapEvent(event: JsonObject): TurnEvent[] {
    const type = readString(event.type);
    if (type !== undefined && TERMINAL_EVENT_TYPES.has(type)) return this.mapTerminal(type, event);
    switch (type) {
      case 'response.created':
      case 'response.in_progress':
      case 'response.queued':
        return this.mapResponseMetadata(event.response);
      case 'response.output_item.added':
        return this.mapItemAdded(event.item);
      case 'response.output_item.done':
        return this.mapItemDone(event.item);
      case 'response.content_part.added':
        return isJsonObject(event.part) && event.part.type === 'output_text' ? this.startText(readTextId(event)) : [];
      case 'response.content_part.done':
        return this.endText(readTextId(event));
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        return this.appendText(readTextId(event), readString(event.delta) ?? '');
      case 'response.output_text.done':
        return this.completeText(readTextId(event), readString(event.text));
      case 'response.refusal.done':
        return this.completeText(readTextId(event), readString(event.refusal));
      case 'response.reasoning_summary_part.added':
        // Summary parts of one reasoning item are joined with a blank line into one block.
        return (readNumber(event.summary_index) ?? 0) > 0 ? this.appendReasoning(readString(event.item_id), '\n\n') : [];
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        return this.appendReasoning(readString(event.item_id), readString(event.delta) ?? '');
      case 'response.function_call_arguments.delta':
      case 'response.custom_tool_call_input.delta':
        return this.appendToolInput(readString(event.item_id), readString(event.delta) ?? '');
      case 'response.function_call_arguments.done':
        return this.endToolCall(readString(event.item_id), readString(event.arguments));
      case 'response.custom_tool_call_input.done':
        return this.endToolCall(readString(event.item_id), readString(event.input));
      case 'error':
        this.errorEmitted = true;
        return [{ type: 'error', error: classifyResponsesStreamError(event, 'error-event') }];
      default:
        // Web search progress, annotations, audio… carry nothing the host needs here.
        if (type === undefined && event.error !== undefined && event.error !== null) {
          // A compatible server's bare `{error:{…}}` record (openai-node raises on any truthy `error`).
          this.errorEmitted = true;
          return [{ type: 'error', error: classifyResponsesStreamError(event, 'error-event') }];
        }
        return [];
    }
  }

  private mapResponseMetadata(response: unknown): TurnEvent[] {
    if (this.metadataEmitted || !isJsonObject(response)) return [];
    const responseId = readString(response.id);
    const model = readString(response.model);
    const createdAt = readNumber(response.created_at);
    if (responseId === undefined && model === undefined && createdAt === undefined) return [];
    this.metadataEmitted = true;
    return [
      {
        type: 'response-metadata',
        ...(responseId !== undefined ? { responseId } : {}),
        ...(model !== undefined ? { model } : {}),
        ...(createdAt !== undefined ? { createdAt } : {}),
      },
    ];
  }

  private mapItemAdded(item: unknown): TurnEvent[] {
    if (!isJsonObject(item)) return [];
    const itemId = readString(item.id);
    if (itemId === undefined) return [];
    if (item.type === 'reasoning') {
      if (this.openReasonings.has(itemId)) return [];
      this.openReasonings.set(itemId, '');
      const encrypted = readString(item.encrypted_content);
      return [{ type: 'reasoning-start', id: itemId, ...(encrypted !== undefined ? { encrypted } : {}) }];
    }
    if (item.type === 'function_call' || item.type === 'custom_tool_call') {
      const toolCallId = readString(item.call_id) ?? itemId;
      const toolName = readString(item.name) ?? '';
      this.toolCalls.set(itemId, { toolCallId, toolName, input: '', ended: false });
      this.hasToolCall = true;
      return [
        { type: 'tool-call-start', toolCallId, toolName, providerFields: { itemId, itemType: item.type } },
      ];
    }
    return [];
  }

  private mapItemDone(item: unknown): TurnEvent[] {
    if (!isJsonObject(item)) return [];
    const itemId = readString(item.id);
    if (itemId === undefined) return [];
    if (item.type === 'message') {
      return [...this.openTexts.keys()].filter((id) => id === itemId || id.startsWith(`${itemId}:`)).flatMap((id) => this.endText(id));
    }
    if (item.type === 'reasoning') {
      // The copy of `encrypted_content` in `.added` "may be incomplete" (SDK `ResponseReasoningItem`).
      const encrypted = readString(item.encrypted_content);
      if (!this.openReasonings.has(itemId)) return [];
      this.openReasonings.delete(itemId);
      return [{ type: 'reasoning-end', id: itemId, ...(encrypted !== undefined ? { encrypted } : {}) }];
    }
    if (item.type === 'function_call') return this.endToolCall(itemId, readString(item.arguments));
    if (item.type === 'custom_tool_call') return this.endToolCall(itemId, readString(item.input));
    return [];
  }

  private startText(id: string | undefined): TurnEvent[] {
    if (id === undefined || this.openTexts.has(id)) return [];
    this.openTexts.set(id, { ...NOTHING_SENT });
    return [{ type: 'text-start', id }];
  }

  private appendText(id: string | undefined, delta: string): TurnEvent[] {
    if (id === undefined) return [];
    const events = this.startText(id);
    if (delta === '') return events;
    const sent = this.openTexts.get(id);
    if (sent !== undefined) {
      sent.length += delta.length;
      sent.tail = (sent.tail + delta).slice(-SENT_TAIL_CHARS);
    }
    return [...events, { type: 'text-delta', id, delta }];
  }

  /** A `.done` carries the full text: emit whatever the deltas did not (a server may skip deltas). */
  private completeText(id: string | undefined, fullText: string | undefined): TurnEvent[] {
    if (id === undefined || fullText === undefined) return [];
    const sent = this.openTexts.get(id) ?? NOTHING_SENT;
    const extendsSent = fullText.length >= sent.length && fullText.startsWith(sent.tail, sent.length - sent.tail.length);
    return extendsSent ? this.appendText(id, fullText.slice(sent.length)) : [];
  }

  private endText(id: string | undefined): TurnEvent[] {
    if (id === undefined || !this.openTexts.has(id)) return [];
    this.openTexts.delete(id);
    return [{ type: 'text-end', id }];
  }

  private appendReasoning(itemId: string | undefined, delta: string): TurnEvent[] {
    if (itemId === undefined || delta === '') return [];
    const events: TurnEvent[] = [];
    if (!this.openReasonings.has(itemId)) {
      events.push({ type: 'reasoning-start', id: itemId });
      this.openReasonings.set(itemId, '');
    }
    events.push({ type: 'reasoning-delta', id: itemId, delta });
    return events;
  }

  private appendToolInput(itemId: string | undefined, delta: string): TurnEvent[] {
    const call = itemId === undefined ? undefined : this.toolCalls.get(itemId);
    if (call === undefined || call.ended || delta === '') return [];
    call.input += delta;
    return [{ type: 'tool-call-delta', toolCallId: call.toolCallId, delta }];
  }

  private endToolCall(itemId: string | undefined, fullInput: string | undefined): TurnEvent[] {
    const call = itemId === undefined ? undefined : this.toolCalls.get(itemId);
    if (call === undefined || call.ended) return [];
    const events: TurnEvent[] = [];
    if (fullInput !== undefined && fullInput.startsWith(call.input) && fullInput.length > call.input.length) {
      events.push(...this.appendToolInput(itemId, fullInput.slice(call.input.length)));
    }
    call.ended = true;
    events.push({ type: 'tool-call-end', toolCallId: call.toolCallId, toolName: call.toolName, input: fullInput ?? call.input });
    return events;
  }

  private mapTerminal(type: string, event: JsonObject): TurnEvent[] {
    this.terminalFrameSeen = true;
    const response = isJsonObject(event.response) ? event.response : {};
    const events: TurnEvent[] = [...this.mapResponseMetadata(response), ...this.closeOpenBlocks()];
    const status = readString(response.status) ?? statusOfTerminal(type);
    if (status === 'failed' && !this.errorEmitted) {
      // One failure, one error event: `openai-error.1` sends `error` then `response.failed` for the same failure.
      events.push({ type: 'error', error: classifyResponsesStreamError(response.error, 'response-failed') });
    }
    const usage = convertResponsesUsage(response.usage);
    if (usage !== undefined) events.push({ type: 'usage', usage });
    const incompleteDetails = isJsonObject(response.incomplete_details) ? response.incomplete_details : {};
    const finishReason = mapResponsesFinishReason({
      status,
      incompleteReason: readString(incompleteDetails.reason),
      hasToolCall: this.hasToolCall,
    });
    events.push({ type: 'finish', finishReason });
    return events;
  }

  /** On a terminal frame every block still open is finished, so the host sees complete blocks. */
  private closeOpenBlocks(): TurnEvent[] {
    const events: TurnEvent[] = [];
    for (const id of [...this.openTexts.keys()]) events.push(...this.endText(id));
    for (const id of [...this.openReasonings.keys()]) {
      this.openReasonings.delete(id);
      events.push({ type: 'reasoning-end', id });
    }
    for (const itemId of [...this.toolCalls.keys()]) events.push(...this.endToolCall(itemId, undefined));
    return events;
  }

  private createUndecodableChunkError(reason: string, cause: unknown): TurnEvent {
    // The record's text is never put in the message: it may hold model output (R4.10).
    return {
      type: 'error',
      error: new TurnError({
        kind: 'server',
        message: `Responses stream: undecodable SSE record (${reason})`,
        details: { reason },
        cause,
      }),
    };
  }
}

/** Text block id: the message item id, suffixed by the content index past the first part. */
function readTextId(event: JsonObject): string | undefined {
  const itemId = readString(event.item_id);
  if (itemId === undefined) return undefined;
  const contentIndex = readNumber(event.content_index) ?? 0;
  return contentIndex === 0 ? itemId : `${itemId}:${contentIndex}`;
}

function statusOfTerminal(type: string): string | undefined {
  if (type === 'response.completed') return 'completed';
  if (type === 'response.incomplete') return 'incomplete';
  if (type === 'response.failed') return 'failed';
  return undefined;
}
