import type { FinishReason, ProviderFields, TurnError, TurnEvent, Usage } from '@turnguard/core';

/** `id`: the neutral block id — for Responses, the upstream's own item id. */
export type OutputBlock =
  | { type: 'text'; id: string; text: string }
  | { type: 'reasoning'; id: string; text: string; signature: string | undefined; redacted: boolean; encrypted: string | undefined }
  | { type: 'tool-call'; id: string; toolCallId: string; toolName: string; input: string; providerFields: ProviderFields | undefined };

/** Everything a non-streaming answer needs, gathered from one logical turn's events. */
export interface TurnOutput {
  responseId: string | undefined;
  model: string | undefined;
  createdAt: number | undefined;
  /** In the order the blocks started. */
  blocks: OutputBlock[];
  usage: Usage | undefined;
  finishReason: FinishReason | undefined;
  error: TurnError | undefined;
  /** A recovery segment ran (its answer continues segment 1's). */
  recovered: boolean;
  /** The turn moved to a fallback (R11.2): the answer is the fallback's alone. */
  failedOver: boolean;
  /** A continuation request went out (R11.6): its text goes on in the open text block. */
  continued: boolean;
}

/**
 * Folds neutral events into a `TurnOutput`, one event at a time (the
 * non-streaming path of R8.1: the turn still streams upstream, so R4
 * recovery works; the client gets one JSON body at the end).
 */
export class TurnOutputCollector {
  readonly output: TurnOutput = {
    responseId: undefined,
    model: undefined,
    createdAt: undefined,
    blocks: [],
    usage: undefined,
    finishReason: undefined,
    error: undefined,
    recovered: false,
    failedOver: false,
    continued: false,
  };
  private readonly open = new Map<string, OutputBlock>();

  add(event: TurnEvent): void {
    const output = this.output;
    switch (event.type) {
      case 'response-metadata':
        output.responseId ??= event.responseId;
        output.model ??= event.model;
        output.createdAt ??= event.createdAt;
        return;
      case 'text-start':
        this.openBlock(event.id, { type: 'text', id: event.id, text: '' });
        return;
      case 'text-delta': {
        const block = this.openBlock(event.id, { type: 'text', id: event.id, text: '' });
        if (block.type === 'text') block.text += event.delta;
        return;
      }
      case 'reasoning-start':
        this.openBlock(event.id, { type: 'reasoning', id: event.id, text: '', signature: undefined, redacted: event.redacted === true, encrypted: event.encrypted });
        return;
      case 'reasoning-delta': {
        const block = this.openBlock(event.id, { type: 'reasoning', id: event.id, text: '', signature: undefined, redacted: false, encrypted: undefined });
        if (block.type === 'reasoning') block.text += event.delta;
        return;
      }
      case 'reasoning-end': {
        const block = this.open.get(event.id);
        if (block?.type === 'reasoning') {
          block.signature = event.signature ?? block.signature;
          block.encrypted = event.encrypted ?? block.encrypted;
        }
        return;
      }
      case 'tool-call-start':
        this.openBlock(event.toolCallId, { type: 'tool-call', id: event.toolCallId, toolCallId: event.toolCallId, toolName: event.toolName, input: '', providerFields: event.providerFields });
        return;
      case 'tool-call-delta': {
        const block = this.open.get(event.toolCallId);
        if (block?.type === 'tool-call') block.input += event.delta;
        return;
      }
      case 'tool-call-end': {
        const block = this.openBlock(event.toolCallId, { type: 'tool-call', id: event.toolCallId, toolCallId: event.toolCallId, toolName: event.toolName, input: '', providerFields: undefined });
        if (block.type === 'tool-call') block.input = event.input;
        return;
      }
      case 'usage':
        output.usage = event.usage;
        return;
      case 'finish':
        output.finishReason = event.finishReason;
        return;
      case 'error':
        output.error = event.error;
        return;
      case 'recovery-start':
        output.recovered = true;
        return;
      case 'fallback':
        // R11.7: the answer is the fallback's alone: a JSON client never saw what the failed attempt
        // streamed (thinking of another model, without its signature).
        this.open.clear();
        output.blocks = [];
        output.failedOver = true;
        return;
      case 'tombstone':
        // R3.8: runTurn dropped an attempt the client never saw (outputHeldUntilEnd, decision 0430): the next one answers from scratch.
        this.dropCollected();
        return;
      case 'continuation-start':
        // R11.6: the continuation's text goes on in the open text block.
        output.continued = true;
        return;
      case 'text-end':
      case 'retry':
      case 'heartbeat':
      case 'warning':
        return;
      default: {
        const _exhaustive: never = event;
        return _exhaustive;
      }
    }
  }

  private dropCollected(): void {
    const output = this.output;
    this.open.clear();
    output.blocks = [];
    output.responseId = undefined;
    output.model = undefined;
    output.createdAt = undefined;
    output.usage = undefined;
    output.finishReason = undefined;
  }

  private openBlock(id: string, fresh: OutputBlock): OutputBlock {
    const existing = this.open.get(id);
    if (existing !== undefined) return existing;
    this.open.set(id, fresh);
    this.output.blocks.push(fresh);
    return fresh;
  }
}
