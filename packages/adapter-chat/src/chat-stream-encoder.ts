import { encodeSseStream, type TurnEvent, type Usage } from '@turnguard/core';
import { toChatFinishReason } from './map-chat-finish-reason.js';
import { toChatUsage } from './convert-chat-usage.js';
import { toOpenAiErrorBody } from './openai-error-body.js';

/**
 * Neutral events → Chat SSE bytes (R7.3): `data: <chat.completion.chunk>\n\n`
 * records, the usage chunk (empty `choices`, only known counts, R5.3) and
 * `data: [DONE]`, as openai-node `Stream.fromSSEResponse` and
 * `ChatCompletionStream` parse them. No `finish` event → no `finish_reason`
 * is invented (R8.3: never a fake `stop`), so `chat.completions.stream()`
 * reports the cut. An `error` event becomes `data: {"error":{…}}`, which the
 * SDK raises as an APIError (R8.3 "an error event then [DONE]").
 */
export function encodeChatStream(events: AsyncIterable<TurnEvent>): ReadableStream<Uint8Array> {
  const encoder = new ChatChunkEncoder();
  return encodeSseStream(events, { encodeEvent: (event) => encoder.encode(event).join(''), finish: () => encoder.finish().join('') });
}

/** Turns neutral events into Chat SSE records; one instance per encoded response. */
export class ChatChunkEncoder {
  /** The upstream's id once seen; our own only if a chunk must be rendered before one (made then: not on the gateway's first-byte path). */
  private responseId: string | undefined;
  private model = '';
  private created = Math.floor(Date.now() / 1000);
  private roleSent = false;
  private usage: Usage | undefined;
  /** Made with the first tool call: a gateway holds an encoder per open stream, and most have none. */
  private toolCallIndexes: Map<string, { index: number; sentInput: string }> | undefined;
  /** False while `observe` runs: records are not rendered (no JSON.stringify), state still advances. */
  private rendering = true;
  /** An error was encoded: only the protocol's closing `[DONE]` may follow it (R8.13). */
  private failed = false;

  /**
   * Advances the state as `encode(event)` would, rendering nothing: for a
   * relay that forwarded the upstream's own bytes for this event and may have
   * to continue the same response with this encoder later (gateway splice).
   */
  observe(event: TurnEvent): void {
    switch (event.type) {
      case 'text-delta':
      case 'reasoning-delta':
        // All that encoding a delta changes: the role has gone out. Nearly every relayed event is
        // one, so no chunk object is built for it here (the gateway observes each record's events).
        this.roleSent = true;
        return;
      default:
        this.rendering = false;
        try {
          this.encode(event);
        } finally {
          this.rendering = true;
        }
    }
  }

  encode(event: TurnEvent): string[] {
    switch (event.type) {
      case 'response-metadata':
        if (event.responseId !== undefined) this.responseId = event.responseId;
        if (event.model !== undefined) this.model = event.model;
        if (event.createdAt !== undefined) this.created = event.createdAt;
        return [];
      case 'text-delta':
        return [this.deltaRecord({ content: event.delta })];
      case 'reasoning-delta':
        // The compatible servers' field (DeepSeek); vercel/ai and codex read it.
        return [this.deltaRecord({ reasoning_content: event.delta })];
      case 'tool-call-start': {
        const indexes = (this.toolCallIndexes ??= new Map());
        const index = indexes.size;
        indexes.set(event.toolCallId, { index, sentInput: '' });
        const call = { index, id: event.toolCallId, type: 'function', function: { name: event.toolName, arguments: '' } };
        return [this.deltaRecord({ tool_calls: [call] })];
      }
      case 'tool-call-delta':
        return this.toolInputRecords(event.toolCallId, event.delta);
      case 'tool-call-end': {
        // Send whatever part of the final input the deltas did not carry (a producer may give only the end).
        const state = this.toolCallIndexes?.get(event.toolCallId);
        if (state === undefined) {
          return [...this.encode({ type: 'tool-call-start', toolCallId: event.toolCallId, toolName: event.toolName }), ...this.toolInputRecords(event.toolCallId, event.input)];
        }
        const rest = event.input.startsWith(state.sentInput) ? event.input.slice(state.sentInput.length) : '';
        return this.toolInputRecords(event.toolCallId, rest);
      }
      case 'usage':
        this.usage = event.usage;
        return [];
      case 'finish':
        return [this.record({ choices: [{ index: 0, delta: this.roleDelta({}), logprobs: null, finish_reason: toChatFinishReason(event.finishReason) }] })];
      case 'error':
        this.failed = true;
        return this.rendering ? [`data: ${JSON.stringify({ error: toOpenAiErrorBody(event.error) })}\n\n`] : [];
      case 'text-start':
      case 'text-end':
      case 'reasoning-start':
      case 'reasoning-end':
      case 'retry':
      case 'heartbeat':
      case 'recovery-start':
      case 'fallback':
      case 'continuation-start':
      case 'tombstone':
      case 'warning':
        // Block boundaries are implicit in Chat; lifecycle events have no Chat wire form.
        return [];
      default: {
        const _exhaustive: never = event;
        return _exhaustive;
      }
    }
  }

  /**
   * The usage chunk (OpenAI sends it after the finish chunk, before `[DONE]`), then `[DONE]`. After
   * an error chunk only `[DONE]`: nothing may follow an error but the protocol's own closing (R8.13).
   */
  finish(): string[] {
    if (this.failed) return ['data: [DONE]\n\n'];
    const records: string[] = [];
    const usage = this.usage === undefined ? undefined : toChatUsage(this.usage);
    if (usage !== undefined) records.push(this.record({ choices: [], usage }));
    records.push('data: [DONE]\n\n');
    return records;
  }

  private toolInputRecords(toolCallId: string, input: string): string[] {
    const state = this.toolCallIndexes?.get(toolCallId);
    if (state === undefined || input === '') return [];
    state.sentInput += input;
    return [this.deltaRecord({ tool_calls: [{ index: state.index, function: { arguments: input } }] })];
  }

  private deltaRecord(delta: Record<string, unknown>): string {
    return this.record({ choices: [{ index: 0, delta: this.roleDelta(delta), logprobs: null, finish_reason: null }] });
  }

  /** openai-node ChatCompletionStream needs `role` once ("missing role for choice 0"). */
  private roleDelta(delta: Record<string, unknown>): Record<string, unknown> {
    if (this.roleSent) return delta;
    this.roleSent = true;
    return { role: 'assistant', ...delta };
  }

  private record(fields: Record<string, unknown>): string {
    if (!this.rendering) return '';
    this.responseId ??= `chatcmpl-turnguard-${globalThis.crypto.randomUUID()}`;
    const chunk = { id: this.responseId, object: 'chat.completion.chunk', created: this.created, model: this.model, ...fields };
    return `data: ${JSON.stringify(chunk)}\n\n`;
  }
}
