import type { Protocol } from '@turnguard/core';

/** Chat Completions `finish_reason` values (openai-node `ChatCompletionChunk.Choice.finish_reason`). */
export type ChatFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call';

/** Messages `stop_reason` values (anthropic-sdk-typescript `StopReason`). */
export type MessagesFinishReason =
  | 'end_turn'
  | 'max_tokens'
  | 'stop_sequence'
  | 'tool_use'
  | 'pause_turn'
  | 'refusal'
  | 'model_context_window_exceeded';

/**
 * Responses terminal events: `response.completed`, or `response.incomplete`
 * with `incomplete_details.reason` (openai-node `Response.IncompleteDetails`).
 * `response.failed` is written by `streamError()`.
 */
export type ResponsesFinishReason = 'completed' | 'incomplete:max_output_tokens' | 'incomplete:content_filter';

export type FinishReasonOf<P extends Protocol> = P extends 'chat'
  ? ChatFinishReason
  : P extends 'messages'
    ? MessagesFinishReason
    : ResponsesFinishReason;

/** Token counts to put on the wire; a field left out is left out of the wire too (R5.1). */
export interface UsageSpec {
  input: number;
  output: number;
  /** Chat `completion_tokens_details.reasoning_tokens`, Responses `output_tokens_details.reasoning_tokens`, Messages `output_tokens_details.thinking_tokens`. */
  reasoning?: number;
  /** Chat/Responses `cached_tokens`, Messages `cache_read_input_tokens`. */
  cachedInput?: number;
  /** Messages `cache_creation_input_tokens` (Chat: `cache_write_tokens`, Responses: `cache_write_tokens`). */
  cacheCreationInput?: number;
}

export interface ToolCallStep {
  type: 'tool-call';
  /** Provider call id; a deterministic one is made when left out. */
  id: string | undefined;
  name: string;
  /** The complete arguments JSON text, streamed in fragments. */
  arguments: string;
  /** When set, the stream ends (EOF, no terminal frame) after this many characters of `arguments`. */
  cutAtChar: number | undefined;
}

export type ScenarioStep =
  | { type: 'reasoning'; text: string }
  | { type: 'text'; text: string }
  | ToolCallStep;

/** What the in-stream error says; each protocol writes it in its own shape. */
export interface StreamErrorSpec {
  /** Chat `error.type`, Messages `error.type` (e.g. `overloaded_error`), Responses `error.type`. */
  type: string | undefined;
  /** Chat/Responses `error.code` (e.g. `rate_limit_exceeded`). */
  code: string | undefined;
  message: string | undefined;
  /** Responses only: `error` event then `response.failed` (real openai-error.1 fixture), or just one of them. */
  responsesForm: 'error-then-failed' | 'failed-only' | 'error-only';
}

export interface HttpErrorSpec {
  status: number;
  headers: Record<string, string>;
  /** Full JSON body; when left out, the protocol's own error shape is built from `type`/`code`/`message`. */
  body: unknown;
  type: string | undefined;
  code: string | undefined;
  message: string | undefined;
}

/** How the response ends. */
export type ScenarioEnding =
  | { kind: 'finish'; reason: string | undefined }
  | { kind: 'cut'; how: 'eof' | 'destroy'; afterEvents: number | undefined; afterBytes: number | undefined }
  | { kind: 'destroy-before-headers' }
  | { kind: 'stream-error'; error: StreamErrorSpec }
  | { kind: 'http-error'; error: HttpErrorSpec };

/** Chat dialect knobs for OpenAI-compatible servers (wire-formats §1.2, §1.4). */
export interface ChatDialect {
  /** `reasoning_content` (DeepSeek) or `reasoning` (OpenRouter, vLLM ≥ PR #27752). */
  reasoningField: 'reasoning_content' | 'reasoning';
  /** `separate-chunk` (OpenAI: `choices: []` chunk) or `finish-chunk` (DeepSeek: on the `finish_reason` chunk). */
  usagePlacement: 'separate-chunk' | 'finish-chunk';
}

/** An immutable description of one upstream response, rendered per protocol. */
export interface Scenario<P extends Protocol = Protocol> {
  readonly protocol: P;
  readonly steps: readonly ScenarioStep[];
  readonly usage: UsageSpec | undefined;
  readonly ending: ScenarioEnding;
  /** Delay before every body chunk (SSE record), via `setTimeout`. */
  readonly chunkDelayMs: number;
  /** Maximum words per text/reasoning delta. */
  readonly wordsPerDelta: number;
  /** Extra response headers (successful and error responses). */
  readonly headers: Readonly<Record<string, string>>;
  /** Model echoed on the wire; defaults to the request's `model`. */
  readonly model: string | undefined;
  readonly chatDialect: ChatDialect;
}
