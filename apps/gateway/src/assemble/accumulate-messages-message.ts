import { parseToolInput } from './render-json-body.js';
import { isRecord, type Json } from './json-record.js';

/** `message_delta.usage` counters the SDK takes when present: cumulative totals, overwritten, never added. */
const OPTIONAL_USAGE_KEYS = ['input_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens', 'server_tool_use', 'output_tokens_details'] as const;

/**
 * @anthropic-ai/sdk's `MessageStream` accumulator for one upstream body
 * (lib/MessageStream.js `#accumulateMessage`): `message_start`'s message
 * (every field: `container`, `usage` with `cache_creation`,
 * `service_tier`…); `message_delta` sets `stop_reason`, `stop_sequence`,
 * `stop_details`, `container` and merges usage as the SDK does; each
 * `content_block_start` object as it came (server tool blocks, web search
 * results, extra fields), then text, thinking, signature, citations and tool
 * input deltas. `finalize` is `finalMessage()` without the SDK's
 * `parsed_output` helper field.
 */
export class MessagesMessageAccumulator {
  #message: Json | undefined;
  #content: Json[] = [];
  /** Tool input streamed as `input_json_delta`, per block (the SDK's non-enumerable `__json_buf`). */
  readonly #inputJson = new Map<Json, string>();

  /** A `message_start` arrived: the SDK has a snapshot to finalize. */
  get started(): boolean {
    return this.#message !== undefined;
  }

  add(event: Json): void {
    if (event.type === 'message_start') {
      this.#start(event);
      return;
    }
    const message = this.#message;
    if (message === undefined) return;
    if (event.type === 'message_delta') applyMessageDelta(message, event);
    else if (event.type === 'content_block_start' && isRecord(event.content_block)) this.#content.push({ ...event.content_block });
    else if (event.type === 'content_block_delta' && typeof event.index === 'number' && isRecord(event.delta)) this.#applyBlockDelta(event.index, event.delta);
  }

  finalize(): Json {
    const content = this.#content.map((block) => {
      const json = this.#inputJson.get(block);
      // withLazyInput (internal/message-stream-utils.js): an empty buffer is `{}`, as parseToolInput reads it.
      return json === undefined ? block : { ...block, input: parseToolInput(json) };
    });
    return { ...this.#message, content };
  }

  #start(event: Json): void {
    // The SDK throws on a second message_start; the decoder ignores a repeat of the open message
    // (fixture duplicate-message-start), and fails the turn on a different one. Either way the first stands.
    if (this.#message !== undefined || !isRecord(event.message)) return;
    this.#message = event.message;
    this.#content = Array.isArray(event.message.content) ? (event.message.content as Json[]) : [];
    this.#message.content = this.#content;
  }

  /** Blocks are changed in place, where the SDK copies the block on every delta: the same result, linear. */
  #applyBlockDelta(index: number, delta: Json): void {
    const block = this.#content.at(index);
    if (block === undefined) return;
    switch (delta.type) {
      case 'text_delta':
        if (block.type === 'text') block.text = String(block.text || '') + String(delta.text);
        return;
      case 'citations_delta':
        if (block.type === 'text') {
          if (!Array.isArray(block.citations)) block.citations = [];
          (block.citations as unknown[]).push(delta.citation);
        }
        return;
      case 'input_json_delta':
        if (block.type === 'tool_use' || block.type === 'server_tool_use') this.#inputJson.set(block, (this.#inputJson.get(block) ?? '') + String(delta.partial_json));
        return;
      case 'thinking_delta':
        if (block.type === 'thinking') block.thinking = String(block.thinking) + String(delta.thinking);
        return;
      case 'signature_delta':
        if (block.type === 'thinking') block.signature = delta.signature;
        return;
      default:
        return;
    }
  }
}

function applyMessageDelta(message: Json, event: Json): void {
  const delta = isRecord(event.delta) ? event.delta : {};
  const usage = isRecord(event.usage) ? event.usage : {};
  message.stop_reason = delta.stop_reason;
  message.stop_sequence = delta.stop_sequence;
  message.stop_details = delta.stop_details;
  const total = isRecord(message.usage) ? message.usage : (message.usage = {});
  total.output_tokens = usage.output_tokens;
  if (delta.container != null) message.container = delta.container;
  for (const key of OPTIONAL_USAGE_KEYS) if (usage[key] != null) total[key] = usage[key];
}
