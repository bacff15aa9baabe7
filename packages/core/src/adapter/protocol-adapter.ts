import type { TurnError } from '../errors/turn-error.js';
import type { DecodedStreamEvent, TurnEvent } from '../types/turn-event.js';
import type { Message } from '../types/message.js';
import type { Prompt } from '../types/prompt.js';
import type { TurnSettings } from '../types/turn-settings.js';
import type { FetchResponseHeaders } from '../turn/send-request.js';
import type { ByteStream } from '../stream/byte-stream.js';
import type { SseRecordObserver } from '../stream/decode-sse-stream.js';

/** What a caller of `decodeStream` may ask for besides the events. */
export interface DecodeStreamOptions {
  /** Told every SSE record of the body with its raw text and the events made of it (the gateway's relay, R8.13). */
  records?: SseRecordObserver<DecodedStreamEvent> | undefined;
}

/** The three wire protocols, in one list every package iterates. */
export const PROTOCOLS = ['chat', 'messages', 'responses'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

/** Where and how to send a native request. */
export interface UpstreamTarget {
  /** e.g. `https://api.openai.com/v1` or `https://api.anthropic.com`, with or without `/v1` (`resolveEndpointUrl`, decision 0260). */
  baseUrl: string;
  apiKey?: string;
  /** Extra headers (session ids, beta flags…). */
  headers?: Record<string, string>;
}

/**
 * Everything protocol-specific, as pure functions (ARCHITECTURE "adapter
 * contract"). Adapters never retry, never decide recovery, never write stats.
 */
export interface ProtocolAdapter<NativeRequest extends object = Record<string, unknown>> {
  readonly protocol: Protocol;

  /** Neutral → native request (R7.1). */
  buildRequest(prompt: Prompt, settings: TurnSettings): NativeRequest;
  /** Native → neutral, lossless: `buildRequest(...parseRequest(x))` deep-equals `x` (R7.1). */
  parseRequest(native: NativeRequest): { prompt: Prompt; settings: TurnSettings };
  /** Appends neutral messages (e.g. a labelled checkpoint) to a native request, keeping everything else. */
  appendMessages(native: NativeRequest, messages: Message[]): NativeRequest;
  /** R4.5: keep tool declarations, disable calling in the protocol's own dialect. */
  withToolsDisabled(native: NativeRequest): NativeRequest;
  withMaxOutputTokens(native: NativeRequest, maxOutputTokens: number): NativeRequest;
  getMaxOutputTokens(native: NativeRequest): number | undefined;
  /** The request's own extended-thinking budget, where the protocol has one (R1.8's resize floor). */
  getThinkingBudget?(native: NativeRequest): number | undefined;
  getModel(native: NativeRequest): string;
  withModel(native: NativeRequest, model: string): NativeRequest;
  /** Forces streaming on (and usage reporting where the protocol needs asking); a request that already asks for both is returned as it is. */
  withStreaming(native: NativeRequest): NativeRequest;

  /**
   * The HTTP request for a native body against an upstream. `body`, when
   * given, is `native` already serialized (the bytes a host parsed it from):
   * it is sent as it is instead of serializing `native` again (R8.2).
   */
  buildHttpRequest(native: NativeRequest, target: UpstreamTarget): { url: string; headers: Record<string, string>; body: string };
  buildHttpRequest(native: NativeRequest, target: UpstreamTarget, body: Uint8Array | undefined): { url: string; headers: Record<string, string>; body: string | Uint8Array };

  /**
   * Native SSE bytes → neutral events, incrementally (R7.2). Never throws for
   * bad data: an undecodable chunk becomes an `error` event. The last item is
   * always `{ type: 'stream-end', terminalFrameSeen }`. Transport failures of
   * the body stream itself propagate as thrown errors. `body` is a WHATWG
   * ReadableStream or a transport's lighter `ByteStream` (read through
   * `getReader()` only).
   */
  decodeStream(body: ByteStream, options?: DecodeStreamOptions): AsyncIterable<DecodedStreamEvent>;
  /** Neutral events → native SSE bytes the official SDKs parse (R7.3). */
  encodeStream(events: AsyncIterable<TurnEvent>): ReadableStream<Uint8Array>;
  /** HTTP error response → R2 kind (R7.4). `body` is the raw text of the response body. */
  classifyError(status: number, headers: FetchResponseHeaders, body: string): TurnError;
}
