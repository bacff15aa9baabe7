import type { TurnError, TurnEvent, Usage } from '@turnguard/core';
import type { ResponseError, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { convertToResponsesUsage } from './convert-responses-usage.js';
import type { JsonObject } from './native-json.js';

/** A Responses stream event before its `sequence_number` is assigned. */
export type UnnumberedEvent = { type: ResponseStreamEvent['type'] } & JsonObject;

interface OpenItem {
  outputIndex: number;
  itemId: string;
  text: string;
  /** Reasoning only: whether the summary part was opened. */
  partOpen: boolean;
  encrypted: string | undefined;
  /** Tool calls only. */
  itemType: 'function_call' | 'custom_tool_call';
  toolCallId: string;
  toolName: string;
}

/**
 * Neutral events → Responses stream events (R7.3), in the order real servers
 * send them (wire-formats §3.2): `response.created`, `response.in_progress`,
 * per item `output_item.added` → parts/deltas/`.done` → `output_item.done`, then
 * one terminal `response.completed|incomplete|failed` whose `response.output`
 * holds every finished item, so openai-node's `ResponseStream` accumulator
 * (`lib/responses/ResponseAccumulator.ts`) ends with the same final response.
 */
export class ResponsesStreamEventBuilder {
  private started = false;
  private finished = false;
  private readonly response: JsonObject = { id: `resp_${crypto.randomUUID().replace(/-/g, '')}`, object: 'response' };
  private readonly output: JsonObject[] = [];
  private readonly openTexts = new Map<string, OpenItem>();
  private readonly openReasonings = new Map<string, OpenItem>();
  private readonly openToolCalls = new Map<string, OpenItem>();
  private usage: Usage | undefined;
  private lastError: TurnError | undefined;

  build(event: TurnEvent): UnnumberedEvent[] {
    if (this.finished) return [];
    switch (event.type) {
      case 'response-metadata':
        if (!this.started) {
          if (event.responseId !== undefined) this.response.id = event.responseId;
          if (event.createdAt !== undefined) this.response.created_at = event.createdAt;
          if (event.model !== undefined) this.response.model = event.model;
        }
        return this.start();
      case 'text-start':
        return [...this.start(), ...this.openText(event.id)];
      case 'text-delta': {
        const events = [...this.start(), ...this.openText(event.id)];
        const item = this.openTexts.get(event.id);
        if (item === undefined || event.delta === '') return events;
        item.text += event.delta;
        const at = { item_id: item.itemId, output_index: item.outputIndex, content_index: 0 };
        return [...events, { type: 'response.output_text.delta', ...at, delta: event.delta, logprobs: [] }];
      }
      case 'text-end':
        return this.closeText(event.id);
      case 'reasoning-start':
        return [...this.start(), ...this.openReasoning(event.id, event.encrypted)];
      case 'reasoning-delta':
        return [...this.start(), ...this.openReasoning(event.id, undefined), ...this.appendReasoning(event.id, event.delta)];
      case 'reasoning-end':
        return this.closeReasoning(event.id, event.encrypted);
      case 'tool-call-start':
        return [...this.start(), ...this.openToolCall(event.toolCallId, event.toolName, event.providerFields)];
      case 'tool-call-delta':
        return this.appendToolInput(event.toolCallId, event.delta);
      case 'tool-call-end':
        return [
          ...this.start(),
          ...this.openToolCall(event.toolCallId, event.toolName, undefined),
          ...this.closeToolCall(event.toolCallId, event.input),
        ];
      case 'usage':
        this.usage = event.usage;
        return [];
      case 'error':
        this.lastError = event.error;
        // Nested under `error`, as real streams send it (fixture `openai-error.1`);
        // openai-node raises an APIError for any record with a truthy `error`.
        return [...this.start(), { type: 'error', error: { ...describeError(event.error), param: null } }];
      case 'finish':
        return this.finish(event.finishReason.unified);
      case 'recovery-start':
      case 'fallback':
        // R8.7: segment 1 may have been cut inside an item (a reasoning item with no
        // output_item.done). Codex CLI keeps items in the order their `done` arrives and sends
        // them back in that order (R8.2), so every open item is done before the recovery's
        // (or a fallback's, R11.2) start.
        return this.closeOpenItems();
      case 'continuation-start':
        // R11.6: the continuation's text goes on in the open message item.
        return [];
      case 'retry':
      case 'heartbeat':
      case 'tombstone':
      case 'warning':
        // turnguard's own lifecycle events have no Responses wire form.
        return [];
      default: {
        const _exhaustive: never = event;
        return _exhaustive;
      }
    }
  }

  /** End of the neutral events: an error without a finish still gets `response.failed` (as real servers do). */
  end(): UnnumberedEvent[] {
    if (this.finished || this.lastError === undefined) return [];
    return this.finish('error');
  }

  private start(): UnnumberedEvent[] {
    if (this.started) return [];
    this.started = true;
    this.response.created_at ??= Math.floor(Date.now() / 1000);
    const snapshot = { ...this.response, status: 'in_progress', output: [], error: null, incomplete_details: null };
    return [
      { type: 'response.created', response: snapshot },
      { type: 'response.in_progress', response: snapshot },
    ];
  }

  private addItem(item: JsonObject): number {
    this.output.push(item);
    return this.output.length - 1;
  }

  private openText(id: string): UnnumberedEvent[] {
    if (this.openTexts.has(id)) return [];
    const item = { id, type: 'message', status: 'in_progress', content: [], role: 'assistant' };
    const outputIndex = this.addItem(item);
    this.openTexts.set(id, createOpenItem(outputIndex, id));
    const part = { type: 'output_text', annotations: [], logprobs: [], text: '' };
    return [
      { type: 'response.output_item.added', output_index: outputIndex, item },
      { type: 'response.content_part.added', item_id: id, output_index: outputIndex, content_index: 0, part },
    ];
  }

  private closeText(id: string): UnnumberedEvent[] {
    const open = this.openTexts.get(id);
    if (open === undefined) return [];
    this.openTexts.delete(id);
    const at = { item_id: id, output_index: open.outputIndex, content_index: 0 };
    const part = { type: 'output_text', annotations: [], logprobs: [], text: open.text };
    const item = { id, type: 'message', status: 'completed', content: [part], role: 'assistant' };
    this.output[open.outputIndex] = item;
    return [
      { type: 'response.output_text.done', ...at, text: open.text, logprobs: [] },
      { type: 'response.content_part.done', ...at, part },
      { type: 'response.output_item.done', output_index: open.outputIndex, item },
    ];
  }

  private openReasoning(id: string, encrypted: string | undefined): UnnumberedEvent[] {
    if (this.openReasonings.has(id)) return [];
    const item = { id, type: 'reasoning', summary: [], ...(encrypted !== undefined ? { encrypted_content: encrypted } : {}) };
    const outputIndex = this.addItem(item);
    this.openReasonings.set(id, { ...createOpenItem(outputIndex, id), encrypted });
    return [{ type: 'response.output_item.added', output_index: outputIndex, item }];
  }

  private appendReasoning(id: string, delta: string): UnnumberedEvent[] {
    const open = this.openReasonings.get(id);
    if (open === undefined || delta === '') return [];
    const at = { item_id: id, output_index: open.outputIndex, summary_index: 0 };
    const events: UnnumberedEvent[] = [];
    if (!open.partOpen) {
      open.partOpen = true;
      events.push({ type: 'response.reasoning_summary_part.added', ...at, part: { type: 'summary_text', text: '' } });
    }
    open.text += delta;
    events.push({ type: 'response.reasoning_summary_text.delta', ...at, delta });
    return events;
  }

  private closeReasoning(id: string, encrypted: string | undefined): UnnumberedEvent[] {
    const open = this.openReasonings.get(id);
    if (open === undefined) return [];
    this.openReasonings.delete(id);
    const at = { item_id: id, output_index: open.outputIndex, summary_index: 0 };
    const part = { type: 'summary_text', text: open.text };
    const events: UnnumberedEvent[] = open.partOpen
      ? [
          { type: 'response.reasoning_summary_text.done', ...at, text: open.text },
          { type: 'response.reasoning_summary_part.done', ...at, part },
        ]
      : [];
    const finalEncrypted = encrypted ?? open.encrypted;
    const item = {
      id,
      type: 'reasoning',
      summary: open.partOpen ? [part] : [],
      ...(finalEncrypted !== undefined ? { encrypted_content: finalEncrypted } : {}),
    };
    this.output[open.outputIndex] = item;
    return [...events, { type: 'response.output_item.done', output_index: open.outputIndex, item }];
  }

  private openToolCall(toolCallId: string, toolName: string, providerFields: JsonObject | undefined): UnnumberedEvent[] {
    if (this.openToolCalls.has(toolCallId)) return [];
    const itemId = typeof providerFields?.itemId === 'string' ? providerFields.itemId : `fc_${toolCallId}`;
    const itemType = providerFields?.itemType === 'custom_tool_call' ? 'custom_tool_call' : 'function_call';
    const open: OpenItem = { ...createOpenItem(0, itemId), itemType, toolCallId, toolName };
    const item = buildToolCallItem(open, 'in_progress');
    open.outputIndex = this.addItem(item);
    this.openToolCalls.set(toolCallId, open);
    return [{ type: 'response.output_item.added', output_index: open.outputIndex, item }];
  }

  private appendToolInput(toolCallId: string, delta: string): UnnumberedEvent[] {
    const open = this.openToolCalls.get(toolCallId);
    if (open === undefined || delta === '') return [];
    open.text += delta;
    const type = open.itemType === 'custom_tool_call' ? 'response.custom_tool_call_input.delta' : 'response.function_call_arguments.delta';
    return [{ type, item_id: open.itemId, output_index: open.outputIndex, delta }];
  }

  private closeToolCall(toolCallId: string, input: string): UnnumberedEvent[] {
    const open = this.openToolCalls.get(toolCallId);
    if (open === undefined) return [];
    this.openToolCalls.delete(toolCallId);
    open.text = input;
    const at = { item_id: open.itemId, output_index: open.outputIndex };
    const doneEvent: UnnumberedEvent =
      open.itemType === 'custom_tool_call'
        ? { type: 'response.custom_tool_call_input.done', ...at, input }
        : { type: 'response.function_call_arguments.done', ...at, arguments: input, name: open.toolName };
    const item = buildToolCallItem(open, 'completed');
    this.output[open.outputIndex] = item;
    return [doneEvent, { type: 'response.output_item.done', output_index: open.outputIndex, item }];
  }

  /** The `done` events of every open item, in output_index order (the order they were added). */
  private closeOpenItems(): UnnumberedEvent[] {
    const open: Array<{ outputIndex: number; close: () => UnnumberedEvent[] }> = [
      ...[...this.openTexts.entries()].map(([id, item]) => ({ outputIndex: item.outputIndex, close: () => this.closeText(id) })),
      ...[...this.openReasonings.entries()].map(([id, item]) => ({ outputIndex: item.outputIndex, close: () => this.closeReasoning(id, undefined) })),
      ...[...this.openToolCalls.values()].map((item) => ({ outputIndex: item.outputIndex, close: () => this.closeToolCall(item.toolCallId, item.text) })),
    ];
    return open.sort((a, b) => a.outputIndex - b.outputIndex).flatMap((item) => item.close());
  }

  private finish(unified: string): UnnumberedEvent[] {
    const events = [...this.start(), ...this.closeOpenItems()];
    this.finished = true;
    const final: JsonObject = {
      ...this.response,
      output: this.output,
      error: null,
      incomplete_details: null,
      ...(this.usage !== undefined ? { usage: convertToResponsesUsage(this.usage) } : {}),
    };
    if (unified === 'length' || unified === 'content-filter') {
      const reason = unified === 'length' ? 'max_output_tokens' : 'content_filter';
      return [...events, { type: 'response.incomplete', response: { ...final, status: 'incomplete', incomplete_details: { reason } } }];
    }
    if (unified === 'error') {
      const error: ResponseError = this.lastError === undefined
        ? ({ code: 'server_error', message: 'The upstream response failed.' } as ResponseError)
        : ({ code: describeError(this.lastError).code, message: this.lastError.message } as ResponseError);
      return [...events, { type: 'response.failed', response: { ...final, status: 'failed', error } }];
    }
    return [...events, { type: 'response.completed', response: { ...final, status: 'completed' } }];
  }
}

function createOpenItem(outputIndex: number, itemId: string): OpenItem {
  return { outputIndex, itemId, text: '', partOpen: false, encrypted: undefined, itemType: 'function_call', toolCallId: '', toolName: '' };
}

function buildToolCallItem(open: OpenItem, status: 'in_progress' | 'completed'): JsonObject {
  const base = { id: open.itemId, type: open.itemType, status, call_id: open.toolCallId, name: open.toolName };
  return open.itemType === 'custom_tool_call' ? { ...base, input: open.text } : { ...base, arguments: open.text };
}

/**
 * The upstream's own code/type when the error came from a Responses stream,
 * else one derived from the kind. A failure of turnguard's own (a cut stream,
 * a time limit, an abort) keeps its stable code (`STREAM_CUT`, `TIMEOUT`…) so
 * a host can tell a cut from an upstream server error (R2.1, R8.3).
 */
function describeError(error: TurnError): { type: string; code: string; message: string } {
  const upstreamCode = typeof error.details.upstreamCode === 'string' ? error.details.upstreamCode : undefined;
  const upstreamType = typeof error.details.upstreamType === 'string' ? error.details.upstreamType : undefined;
  const derivedCode = KIND_TO_CODE[error.kind];
  const derivedType = KIND_TO_TYPE[error.kind] ?? derivedCode;
  return { type: upstreamType ?? derivedType ?? 'server_error', code: upstreamCode ?? derivedCode ?? error.code, message: error.message };
}

const KIND_TO_CODE: Partial<Record<TurnError['kind'], string>> = {
  rate_limit: 'rate_limit_exceeded',
  prompt_too_long: 'context_length_exceeded',
  content_filter: 'content_filter',
  // The request-level code of `ResponseError.code` (openai-node resources/responses): Codex reads it
  // as a request it must not send again as is, where any other code is retried (decision 0360).
  invalid_request: 'invalid_prompt',
  media_too_large: 'image_too_large',
};

/** Where the error `type` is not the code: OpenAI's `type` vocabulary names the class. */
const KIND_TO_TYPE: Partial<Record<TurnError['kind'], string>> = {
  invalid_request: 'invalid_request_error',
};
