import type { Protocol, ProtocolAdapter } from '../adapter/protocol-adapter.js';
import { TurnError } from '../errors/turn-error.js';
import { decodeSseStream, type SseRecordDecoder } from '../stream/decode-sse-stream.js';
import type { UnifiedFinishReason } from '../types/finish-reason.js';
import type { Message } from '../types/message.js';
import type { DecodedStreamEvent } from '../types/turn-event.js';
import type { FetchResponse } from './send-request.js';
import { fakeNativeEdits } from './fake-wire.test-helper.js';

/**
 * A fake protocol on real SSE for the fail-over chain's tests: each record's
 * data is one JSON line (`{"t":"…"}` text, `{"r":"…"}` reasoning,
 * `{"tool":"x"}`, `{"u":{…}}` usage, `{"end":"stop"}`, `{"ping":1}` a data
 * record with no event), decoded by core's own SSE reader, so the record
 * observer (and with it the attempt's time limits) sees every record, and
 * an SSE comment is not a record.
 */
export interface ChainNative {
  model: string;
  messages: Message[];
  max_tokens?: number;
  tool_choice?: 'auto' | 'none';
  stream?: boolean;
  /** Host-protocol-only fields a cross-family request must not carry. */
  [extra: string]: unknown;
}

export type WireLine = { t: string } | { r: string } | { tool: string } | { toolStart: string; args: string } | { u: { in?: number; out?: number } } | { end: UnifiedFinishReason } | { ping: 1 } | { comment: string } | { garbage: true };

class FakeRecordDecoder implements SseRecordDecoder<DecodedStreamEvent> {
  #terminal = false;
  #textOpen = false;
  #tools = 0;

  pushRecordEvents(_eventName: string | undefined, data: string, events: DecodedStreamEvent[]): void {
    let line: Record<string, unknown>;
    try {
      line = JSON.parse(data) as Record<string, unknown>;
    } catch {
      events.push({ type: 'error', error: new TurnError({ kind: 'server', code: 'MALFORMED_CHUNK', message: 'undecodable record' }) });
      return;
    }
    if (typeof line.t === 'string') {
      if (!this.#textOpen) {
        this.#textOpen = true;
        events.push({ type: 'text-start', id: 'text-0' });
      }
      events.push({ type: 'text-delta', id: 'text-0', delta: line.t });
    } else if (typeof line.r === 'string') events.push({ type: 'reasoning-delta', id: 'r0', delta: line.r });
    else if (typeof line.tool === 'string') {
      const toolCallId = `call_${this.#tools++}`;
      events.push({ type: 'tool-call-start', toolCallId, toolName: line.tool }, { type: 'tool-call-end', toolCallId, toolName: line.tool, input: '{}' });
    } else if (typeof line.toolStart === 'string') {
      // A tool call whose arguments are still streaming: no tool-call-end yet.
      const toolCallId = `call_${this.#tools++}`;
      events.push({ type: 'tool-call-start', toolCallId, toolName: line.toolStart }, { type: 'tool-call-delta', toolCallId, delta: String(line.args) });
    } else if (typeof line.u === 'object' && line.u !== null) {
      const u = line.u as { in?: number; out?: number };
      events.push({ type: 'usage', usage: { inputTokens: u.in, cachedInputTokens: undefined, cacheCreationInputTokens: undefined, outputTokens: u.out, reasoningTokens: undefined, totalTokens: undefined } });
    } else if (typeof line.end === 'string') {
      this.#terminal = true;
      if (this.#textOpen) events.push({ type: 'text-end', id: 'text-0' });
      events.push({ type: 'finish', finishReason: { unified: line.end as UnifiedFinishReason, raw: line.end } });
    }
  }

  pushEndEvents(events: DecodedStreamEvent[]): void {
    events.push({ type: 'stream-end', terminalFrameSeen: this.#terminal });
  }
}

/** The fake protocol as an adapter of family `protocol` (two families differ only in their name and URL path). */
export function createChainAdapter(protocol: Protocol): ProtocolAdapter<ChainNative> {
  return {
    protocol,
    buildRequest: (prompt, settings) => ({
      model: settings.model,
      messages: prompt.messages,
      ...(settings.maxOutputTokens === undefined ? {} : { max_tokens: settings.maxOutputTokens }),
      ...settings.providerFields,
    }),
    parseRequest: (native) => {
      const { model, messages, max_tokens, stream, ...rest } = native;
      return { prompt: { messages }, settings: { model, stream: stream === true, ...(max_tokens === undefined ? {} : { maxOutputTokens: max_tokens }), providerFields: rest } };
    },
    ...fakeNativeEdits<ChainNative>(),
    buildHttpRequest: (native, target) => ({ url: `${target.baseUrl}/${protocol}`, headers: { 'content-type': 'application/json', ...target.headers }, body: JSON.stringify(native) }),
    decodeStream: (body, options) => decodeSseStream(body, { decoder: new FakeRecordDecoder(), lastRecord: 'drop', records: options?.records }),
    encodeStream: () => {
      throw new Error('not used');
    },
    classifyError: (status, headers, body) => {
      const retryAfter = headers.get('retry-after');
      const kind = status === 429 ? 'rate_limit' : status === 529 ? 'overloaded' : status === 401 ? 'auth' : status >= 500 ? 'server' : /context/.test(body) ? 'prompt_too_long' : /filter/.test(body) ? 'content_filter' : 'invalid_request';
      return new TurnError({ kind, status, message: `HTTP ${status}: ${body}`, retryAfterMs: retryAfter === null ? undefined : Number(retryAfter) * 1000 });
    },
  };
}

/** One scripted answer. `gapMs` between records (default 0); `then` after the last: a clean end, a reset, or silence. */
export type ChainReply =
  | { lines: WireLine[]; gapMs?: number; firstDelayMs?: number; then?: 'eof' | 'reset' | 'hang' }
  | { status: number; body?: string; headers?: Record<string, string> }
  | { silent: true }
  | { connectTimeout: true };

export interface RecordedChainRequest {
  baseUrl: string;
  body: ChainNative;
  time: number;
}

function recordText(line: WireLine): string {
  if ('comment' in line) return `: ${line.comment}\n\n`;
  if ('garbage' in line) return 'data: {"t":\n\n';
  return `data: ${JSON.stringify(line)}\n\n`;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A scripted fetch per base URL (each destination its own queue), on the given clock; records every request. */
export function createChainFetch(script: Record<string, ChainReply[]>, now: () => number = Date.now): {
  fetch: (url: string, init: RequestInit) => Promise<FetchResponse>;
  requests: RecordedChainRequest[];
  to(baseUrl: string): RecordedChainRequest[];
} {
  const requests: RecordedChainRequest[] = [];
  const fetch = async (url: string, init: RequestInit): Promise<FetchResponse> => {
    const baseUrl = url.slice(0, url.lastIndexOf('/'));
    requests.push({ baseUrl, body: JSON.parse(init.body as string) as ChainNative, time: now() });
    const reply = script[baseUrl]?.shift() ?? { lines: [{ t: `unexpected extra request to ${baseUrl}` }, { end: 'stop' }] };
    if ('connectTimeout' in reply) throw new TypeError('fetch failed', { cause: Object.assign(new Error('Connect Timeout Error'), { name: 'ConnectTimeoutError', code: 'UND_ERR_CONNECT_TIMEOUT' }) });
    if ('silent' in reply) return new Promise<FetchResponse>(() => undefined);
    if ('status' in reply) return new Response(reply.body ?? '{"error":"x"}', { status: reply.status, headers: reply.headers });
    const encoder = new TextEncoder();
    let index = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (index < reply.lines.length) {
          const delay = index === 0 ? (reply.firstDelayMs ?? 0) : (reply.gapMs ?? 0);
          if (delay > 0) await sleep(delay);
          controller.enqueue(encoder.encode(recordText(reply.lines[index++]!)));
          return;
        }
        if (reply.then === 'reset') controller.error(Object.assign(new TypeError('terminated'), { cause: { code: 'UND_ERR_SOCKET' } }));
        else if (reply.then === 'hang') await new Promise<void>(() => undefined);
        else controller.close();
      },
    });
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  };
  return { fetch, requests, to: (baseUrl) => requests.filter((request) => request.baseUrl === baseUrl) };
}

export const PRIMARY = 'https://primary.test';
export const SECOND = 'https://second.test';
export const THIRD = 'https://third.test';

/** The host's own request: one user message, a tool declared. */
export function chainRequest(extra: Partial<ChainNative> = {}): ChainNative {
  return { model: 'primary-model', messages: [{ role: 'user', content: [{ type: 'text', text: 'question' }] }], tool_choice: 'auto', ...extra };
}

/** A fallback destination on the fake protocol. */
export function fallbackTo(baseUrl: string, model: string, options: { protocol?: Protocol; prefill?: 'trailing-message' | 'prefix-flag' | 'messages' | 'continue-final-message' } = {}) {
  return {
    adapter: createChainAdapter(options.protocol ?? 'chat'),
    target: { baseUrl },
    model,
    upstream: new URL(baseUrl).host.split('.')[0]!,
    ...(options.prefill === undefined ? {} : { prefill: options.prefill }),
  };
}
