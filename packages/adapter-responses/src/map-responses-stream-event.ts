import { RecordTemplate, TemplateLearningBudget, TurnError, type DecodedStreamEvent, type StreamEnd, type TurnEvent } from '@turnguard/core';
import { classifyResponsesStreamError } from './classify-responses-error.js';
import { convertResponsesUsage } from './convert-responses-usage.js';
import { mapResponsesFinishReason } from './map-responses-finish-reason.js';
import { OutputItemIds } from './output-item-ids.js';
import { isJsonObject, readNumber, readString, type JsonObject } from './native-json.js';

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

type DeltaKind = 'text' | 'reasoning' | 'tool';

/** The delta record types and what their `delta` feeds (as in `pushEventEvents`' first cases). */
const DELTA_KINDS: ReadonlyMap<string, DeltaKind> = new Map([
  ['response.output_text.delta', 'text'],
  ['response.refusal.delta', 'text'],
  ['response.reasoning_summary_text.delta', 'reasoning'],
  ['response.reasoning_text.delta', 'reasoning'],
  ['response.function_call_arguments.delta', 'tool'],
  ['response.custom_tool_call_input.delta', 'tool'],
]);

interface DeltaTemplate {
  template: RecordTemplate;
  kind: DeltaKind;
  /** The text block id (text) or item id (reasoning, tool) read from the learned record. */
  id: string | undefined;
}
const NOTHING_SENT: SentText = { length: 0, tail: '' };

interface ToolCallState {
  toolCallId: string;
  toolName: string;
  input: string;
  ended: boolean;
}

/**
 * Maps parsed Responses SSE records to neutral events (R7.2), one record at a
 * time. Pure state machine: no I/O, never throws for bad data. The `push*`
 * methods append to the caller's array (the stream decoder's per-read batch),
 * so a record allocates only the events it stands for; `mapRecord` returns a
 * fresh array for callers that want one (`node bench/decode/run.mjs`).
 */
export class ResponsesStreamEventMapper {
  private metadataEmitted = false;
  private terminalFrameSeen = false;
  private errorEmitted = false;
  private hasToolCall = false;
  /** Any `*_call` output item, hosted ones (web_search_call…) included: R4.1 allows no recovery after a tool call. */
  private toolCallSeen = false;
  /** Open text blocks: neutral id → what was streamed so far. */
  private readonly openTexts = new Map<string, SentText>();
  /** Open reasoning blocks by item id (the value is unused; the text itself is not kept). */
  private readonly openReasonings = new Map<string, string>();
  /** Stable item ids keyed by `output_index`, so a rotated or missing `item_id` changes nothing. */
  private readonly itemIds = new OutputItemIds();
  /** Tool calls by item id (deltas carry `item_id`, not `call_id`: wire-formats §3.2). */
  private readonly toolCalls = new Map<string, ToolCallState>();
  /** The stream's repetitive delta record, so its next ones skip JSON.parse (decision 0320). */
  private deltaTemplate: DeltaTemplate | undefined;
  private readonly learning: TemplateLearningBudget;

  /** `learnRecordShapes: false` turns the template fast path off (the reference its tests compare with). */
  constructor(options: { learnRecordShapes?: boolean } = {}) {
    this.learning = new TemplateLearningBudget(options.learnRecordShapes !== false);
  }

  /** One SSE record (its `data` text) → neutral events. */
  mapRecord(data: string): DecodedStreamEvent[] {
    const events: DecodedStreamEvent[] = [];
    this.pushRecordEvents(data, events);
    return events;
  }

  /** One SSE record (its `data` text) → its neutral events, appended to `events`. Never throws. */
  pushRecordEvents(data: string, events: DecodedStreamEvent[]): void {
    // Nothing after the terminal frame belongs to this response; openai-node
    // also tolerates a trailing `[DONE]` (wire-formats §3.1).
    if (this.terminalFrameSeen || data.trim() === '[DONE]') return;
    const learned = this.deltaTemplate;
    if (learned !== undefined) {
      const value = learned.template.matchValue(data);
      if (value !== undefined) {
        this.learning.earn();
        this.pushDelta(learned.kind, learned.id, value, events);
        return;
      }
    }
    let payload: unknown;
    try {
      payload = JSON.parse(data);
    } catch {
      events.push(this.createUndecodableChunkError('not JSON'));
      return;
    }
    if (!isJsonObject(payload)) {
      events.push(this.createUndecodableChunkError('not a JSON object'));
      return;
    }
    this.pushEventEvents(payload, events);
    if (this.learning.open && typeof payload.delta === 'string' && payload.delta !== '') this.learnDeltaTemplate(data, payload);
  }

  /**
   * Learns the shape of a delta record (text, reasoning or tool input). Its
   * type, ids and indexes are constant text of the template; only
   * `sequence_number`, which nothing here reads, may vary besides the value.
   */
  private learnDeltaTemplate(data: string, payload: JsonObject): void {
    const type = readString(payload.type);
    const kind = type === undefined ? undefined : DELTA_KINDS.get(type);
    if (kind === undefined || !this.learning.take()) return;
    const template = RecordTemplate.learn(data, {
      valueKey: 'delta',
      ignoredIntegerKeys: ['sequence_number'],
      readValue: (probed) => (isJsonObject(probed) ? probed.delta : undefined),
    });
    if (template === undefined) return;
    this.deltaTemplate = { template, kind, id: kind === 'text' ? this.itemIds.textId(payload) : this.itemIds.itemId(payload, payload.item_id) };
  }

  /** What `pushEventEvents` does for a delta record of `kind` (the same calls, the same arguments). */
  private pushDelta(kind: DeltaKind, id: string | undefined, delta: string, events: DecodedStreamEvent[]): void {
    if (kind === 'text') this.pushText(id, delta, events);
    else if (kind === 'reasoning') this.pushReasoning(id, delta, events);
    else this.pushToolInput(id, delta, events);
  }

  /** The last item of the stream (R7.2). */
  end(): StreamEnd {
    return this.toolCallSeen
      ? { type: 'stream-end', terminalFrameSeen: this.terminalFrameSeen, toolCallSeen: true }
      : { type: 'stream-end', terminalFrameSeen: this.terminalFrameSeen };
  }

  private pushEventEvents(event: JsonObject, events: DecodedStreamEvent[]): void {
    const type = readString(event.type);
    // The delta cases come first: they are nearly every record of a stream.
    switch (type) {
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        return this.pushText(this.itemIds.textId(event), readString(event.delta) ?? '', events);
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        return this.pushReasoning(this.itemIds.itemId(event, event.item_id), readString(event.delta) ?? '', events);
      case 'response.function_call_arguments.delta':
      case 'response.custom_tool_call_input.delta':
        return this.pushToolInput(this.itemIds.itemId(event, event.item_id), readString(event.delta) ?? '', events);
      // The terminal events (SPEC "terminal frame"). `response.done` is sent by
      // the ChatGPT/Codex backend instead (wire-formats §3.3, 3rd-party). A lone
      // `error` event is NOT terminal: real streams follow it with
      // `response.failed` (fixture `openai-error.1`), so a stream that ends right
      // after it is reported as cut, with the error event already emitted.
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed':
      case 'response.done':
        return this.pushTerminal(type, event, events);
      case 'response.created':
      case 'response.in_progress':
      case 'response.queued':
        return this.pushResponseMetadata(event.response, events);
      case 'response.output_item.added':
        return this.pushItemAdded(event, events);
      case 'response.output_item.done':
        return this.pushItemDone(event, events);
      case 'response.content_part.added':
        if (isJsonObject(event.part) && event.part.type === 'output_text') this.pushTextStart(this.itemIds.textId(event), events);
        return;
      case 'response.content_part.done':
        return this.pushTextEnd(this.itemIds.textId(event), events);
      case 'response.output_text.done':
        return this.pushTextRest(this.itemIds.textId(event), readString(event.text), events);
      case 'response.refusal.done':
        return this.pushTextRest(this.itemIds.textId(event), readString(event.refusal), events);
      case 'response.reasoning_summary_part.added':
        // Summary parts of one reasoning item are joined with a blank line into one block.
        if ((readNumber(event.summary_index) ?? 0) > 0) this.pushReasoning(this.itemIds.itemId(event, event.item_id), '\n\n', events);
        return;
      case 'response.function_call_arguments.done':
        return this.pushToolCallEnd(this.itemIds.itemId(event, event.item_id), readString(event.arguments), events);
      case 'response.custom_tool_call_input.done':
        return this.pushToolCallEnd(this.itemIds.itemId(event, event.item_id), readString(event.input), events);
      case 'error':
        this.errorEmitted = true;
        events.push({ type: 'error', error: classifyResponsesStreamError(event, 'error-event') });
        return;
      default:
        // Web search progress, annotations, audio… carry nothing the host needs here.
        if (type === undefined && event.error !== undefined && event.error !== null) {
          // A compatible server's bare `{error:{…}}` record (openai-node raises on any truthy `error`).
          this.errorEmitted = true;
          events.push({ type: 'error', error: classifyResponsesStreamError(event, 'error-event') });
        }
    }
  }

  private pushResponseMetadata(response: unknown, events: DecodedStreamEvent[]): void {
    if (this.metadataEmitted || !isJsonObject(response)) return;
    const responseId = readString(response.id);
    const model = readString(response.model);
    const createdAt = readNumber(response.created_at);
    if (responseId === undefined && model === undefined && createdAt === undefined) return;
    this.metadataEmitted = true;
    events.push({
      type: 'response-metadata',
      ...(responseId !== undefined ? { responseId } : {}),
      ...(model !== undefined ? { model } : {}),
      ...(createdAt !== undefined ? { createdAt } : {}),
    });
  }

  private pushItemAdded(event: JsonObject, events: DecodedStreamEvent[]): void {
    const item = event.item;
    if (!isJsonObject(item)) return;
    const itemId = this.itemIds.itemId(event, item.id);
    if (itemId === undefined) return;
    if (item.type === 'reasoning') {
      if (this.openReasonings.has(itemId)) return;
      this.openReasonings.set(itemId, '');
      const encrypted = readString(item.encrypted_content);
      events.push({ type: 'reasoning-start', id: itemId, ...(encrypted !== undefined ? { encrypted } : {}) });
      return;
    }
    if (item.type === 'message') {
      // The message's first text block opens with its item, not only with its first content part:
      // an item the client was shown must be one the neutral events (and so an encoder continuing
      // this stream after a cut) know of, or a recovery's item would reuse its output_index (R8.7).
      this.pushTextStart(itemId, events);
      return;
    }
    if (typeof item.type === 'string' && item.type.endsWith('_call')) this.toolCallSeen = true;
    if (item.type === 'function_call' || item.type === 'custom_tool_call') {
      const toolCallId = readString(item.call_id) ?? itemId;
      const toolName = readString(item.name) ?? '';
      this.toolCalls.set(itemId, { toolCallId, toolName, input: '', ended: false });
      this.hasToolCall = true;
      events.push({ type: 'tool-call-start', toolCallId, toolName, providerFields: { itemId, itemType: item.type } });
    }
  }

  private pushItemDone(event: JsonObject, events: DecodedStreamEvent[]): void {
    const item = event.item;
    if (!isJsonObject(item)) return;
    const itemId = this.itemIds.itemId(event, item.id);
    if (itemId === undefined) return;
    if (item.type === 'message') {
      // Deleting the entry being visited is safe in a Map's for…of.
      for (const id of this.openTexts.keys()) {
        if (id === itemId || id.startsWith(`${itemId}:`)) this.pushTextEnd(id, events);
      }
      return;
    }
    if (item.type === 'reasoning') {
      // The copy of `encrypted_content` in `.added` "may be incomplete" (SDK `ResponseReasoningItem`).
      const encrypted = readString(item.encrypted_content);
      if (!this.openReasonings.has(itemId)) return;
      this.openReasonings.delete(itemId);
      events.push({ type: 'reasoning-end', id: itemId, ...(encrypted !== undefined ? { encrypted } : {}) });
      return;
    }
    if (item.type === 'function_call') this.pushToolCallEnd(itemId, readString(item.arguments), events);
    else if (item.type === 'custom_tool_call') this.pushToolCallEnd(itemId, readString(item.input), events);
  }

  /** Opens the text block `id` unless it is open; returns what was streamed of it. */
  private pushTextStart(id: string | undefined, events: DecodedStreamEvent[]): SentText | undefined {
    if (id === undefined) return undefined;
    const open = this.openTexts.get(id);
    if (open !== undefined) return open;
    const sent: SentText = { length: 0, tail: '' };
    this.openTexts.set(id, sent);
    events.push({ type: 'text-start', id });
    return sent;
  }

  private pushText(id: string | undefined, delta: string, events: DecodedStreamEvent[]): void {
    if (id === undefined) return;
    const sent = this.pushTextStart(id, events);
    if (sent === undefined || delta === '') return;
    sent.length += delta.length;
    sent.tail = (sent.tail + delta).slice(-SENT_TAIL_CHARS);
    events.push({ type: 'text-delta', id, delta });
  }

  /** A `.done` carries the full text: emit whatever the deltas did not (a server may skip deltas). */
  private pushTextRest(id: string | undefined, fullText: string | undefined, events: DecodedStreamEvent[]): void {
    if (id === undefined || fullText === undefined) return;
    const sent = this.openTexts.get(id) ?? NOTHING_SENT;
    const extendsSent = fullText.length >= sent.length && fullText.startsWith(sent.tail, sent.length - sent.tail.length);
    if (extendsSent) this.pushText(id, fullText.slice(sent.length), events);
  }

  private pushTextEnd(id: string | undefined, events: DecodedStreamEvent[]): void {
    if (id === undefined || !this.openTexts.delete(id)) return;
    events.push({ type: 'text-end', id });
  }

  private pushReasoning(itemId: string | undefined, delta: string, events: DecodedStreamEvent[]): void {
    if (itemId === undefined || delta === '') return;
    if (!this.openReasonings.has(itemId)) {
      events.push({ type: 'reasoning-start', id: itemId });
      this.openReasonings.set(itemId, '');
    }
    events.push({ type: 'reasoning-delta', id: itemId, delta });
  }

  private pushToolInput(itemId: string | undefined, delta: string, events: DecodedStreamEvent[]): void {
    const call = itemId === undefined ? undefined : this.toolCalls.get(itemId);
    if (call === undefined || call.ended || delta === '') return;
    call.input += delta;
    events.push({ type: 'tool-call-delta', toolCallId: call.toolCallId, delta });
  }

  private pushToolCallEnd(itemId: string | undefined, fullInput: string | undefined, events: DecodedStreamEvent[]): void {
    const call = itemId === undefined ? undefined : this.toolCalls.get(itemId);
    if (call === undefined || call.ended) return;
    if (fullInput !== undefined && fullInput.startsWith(call.input) && fullInput.length > call.input.length) {
      this.pushToolInput(itemId, fullInput.slice(call.input.length), events);
    }
    call.ended = true;
    events.push({ type: 'tool-call-end', toolCallId: call.toolCallId, toolName: call.toolName, input: fullInput ?? call.input });
  }

  private pushTerminal(type: string, event: JsonObject, events: DecodedStreamEvent[]): void {
    this.terminalFrameSeen = true;
    const response = isJsonObject(event.response) ? event.response : {};
    this.pushResponseMetadata(response, events);
    this.pushOpenBlockEnds(events);
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
  }

  /** On a terminal frame every block still open is finished, so the host sees complete blocks. */
  private pushOpenBlockEnds(events: DecodedStreamEvent[]): void {
    for (const id of this.openTexts.keys()) this.pushTextEnd(id, events);
    for (const id of this.openReasonings.keys()) {
      this.openReasonings.delete(id);
      events.push({ type: 'reasoning-end', id });
    }
    for (const itemId of this.toolCalls.keys()) this.pushToolCallEnd(itemId, undefined, events);
  }

  private createUndecodableChunkError(reason: string): TurnEvent {
    // Neither the record's text nor JSON.parse's SyntaxError (V8 quotes the
    // input in its message) is kept: the record may hold model output (R4.10).
    return {
      type: 'error',
      error: new TurnError({
        kind: 'server',
        code: 'MALFORMED_CHUNK',
        message: `Responses stream: undecodable SSE record (${reason})`,
        details: { reason },
      }),
    };
  }
}

function statusOfTerminal(type: string): string | undefined {
  if (type === 'response.completed') return 'completed';
  if (type === 'response.incomplete') return 'incomplete';
  if (type === 'response.failed') return 'failed';
  return undefined;
}
