import type { ProtocolAdapter } from '../adapter/protocol-adapter.js';
import { TurnError } from '../errors/turn-error.js';
import type { UnifiedFinishReason } from '../types/finish-reason.js';
import type { Message } from '../types/message.js';
import type { DecodedStreamEvent, TurnEvent } from '../types/turn-event.js';
import type { ToolDefinition } from '../types/tool-definition.js';
import type { ByteStream } from '../stream/byte-stream.js';

/** The fake natives' shape: what their request edits touch. */
interface FakeNativeFields {
  model: string;
  messages: Message[];
  max_tokens?: number;
  tool_choice?: 'auto' | 'none';
  stream?: boolean;
}

/** The request edits both fake protocols share (the adapter contract's `with…`/`get…` methods). */
export function fakeNativeEdits<Native extends FakeNativeFields>(): Pick<
  ProtocolAdapter<Native>,
  'appendMessages' | 'withToolsDisabled' | 'withMaxOutputTokens' | 'getMaxOutputTokens' | 'getModel' | 'withModel' | 'withStreaming'
> {
  return {
    appendMessages: (native, messages) => ({ ...native, messages: [...native.messages, ...messages] }),
    withToolsDisabled: (native) => ({ ...native, tool_choice: 'none' }),
    withMaxOutputTokens: (native, n) => ({ ...native, max_tokens: n }),
    getMaxOutputTokens: (native) => native.max_tokens,
    getModel: (native) => native.model,
    withModel: (native, model) => ({ ...native, model }),
    withStreaming: (native) => ({ ...native, stream: true }),
  };
}

/** A tiny native format for runTurn's unit tests: one JSON object per line. */
export interface FakeNative {
  model: string;
  messages: Message[];
  max_tokens?: number;
  tools?: ToolDefinition[];
  tool_choice?: 'auto' | 'none';
  stream?: boolean;
}

/** Wire lines: `{"r":"…"}` reasoning, `{"t":"…"}` text, `{"tool":"name"}`, `{"u":{…}}`, `{"end":"stop"}`, `{"err":"overloaded"}`. */
export type FakeLine =
  | { r: string }
  | { t: string }
  | { tool: string; partial?: boolean }
  | { u: { in?: number; out?: number } }
  | { end: 'stop' | 'length' | 'tool-calls' }
  | { err: 'overloaded' | 'server' };

export function encodeLines(lines: FakeLine[]): string {
  return lines.map((line) => JSON.stringify(line) + '\n').join('');
}

async function* decodeFake(body: ByteStream): AsyncGenerator<DecodedStreamEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let terminal = false;
  let block = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = JSON.parse(buffer.slice(0, newline)) as Record<string, unknown>;
        buffer = buffer.slice(newline + 1);
        if (typeof line.r === 'string') yield { type: 'reasoning-delta', id: 'r0', delta: line.r };
        else if (typeof line.t === 'string') yield { type: 'text-delta', id: 't0', delta: line.t };
        else if (typeof line.tool === 'string') {
          const toolCallId = `call_${block++}`;
          yield { type: 'tool-call-start', toolCallId, toolName: line.tool };
          if (line.partial !== true) yield { type: 'tool-call-end', toolCallId, toolName: line.tool, input: '{}' };
        } else if (typeof line.u === 'object' && line.u !== null) {
          const u = line.u as { in?: number; out?: number };
          yield {
            type: 'usage',
            usage: {
              inputTokens: u.in,
              cachedInputTokens: undefined,
              cacheCreationInputTokens: undefined,
              outputTokens: u.out,
              reasoningTokens: undefined,
              totalTokens: undefined,
            },
          };
        } else if (typeof line.end === 'string') {
          terminal = true;
          yield { type: 'finish', finishReason: { unified: line.end as UnifiedFinishReason, raw: line.end } };
        } else if (typeof line.err === 'string') {
          yield { type: 'error', error: new TurnError({ kind: line.err as 'overloaded', message: 'in-stream error' }) };
        }
      }
    }
  } finally {
    reader.releaseLock();
  }
  yield { type: 'stream-end', terminalFrameSeen: terminal };
}

export const fakeAdapter: ProtocolAdapter<FakeNative> = {
  protocol: 'chat',
  buildRequest: (prompt, settings) => ({ model: settings.model, messages: prompt.messages }),
  parseRequest: (native) => ({
    prompt: { messages: native.messages },
    settings: { model: native.model, stream: true, maxOutputTokens: native.max_tokens, tools: native.tools },
  }),
  ...fakeNativeEdits<FakeNative>(),
  buildHttpRequest: (native, target) => ({
    url: `${target.baseUrl}/fake`,
    headers: { 'content-type': 'application/json', ...target.headers },
    body: JSON.stringify(native),
  }),
  decodeStream: (body) => decodeFake(body),
  encodeStream: () => {
    throw new Error('not used');
  },
  classifyError: (status, headers, body) => {
    const retryAfter = headers.get('retry-after');
    const kind =
      status === 429 ? 'rate_limit' : status === 529 ? 'overloaded' : status >= 500 ? 'server' : 'invalid_request';
    return new TurnError({
      kind,
      status,
      message: `HTTP ${status}`,
      retryAfterMs: retryAfter === null ? undefined : Number(retryAfter) * 1000,
      details: { bodyLength: body.length },
    });
  },
};

/** What the fake upstream does for one physical request. */
export type FakeReply =
  | { lines: FakeLine[]; then?: 'eof' | 'reset' | 'hang' }
  | { status: number; headers?: Record<string, string> }
  | { connectError: 'ECONNRESET' };

export interface RecordedFakeRequest {
  url: string;
  headers: Record<string, string>;
  body: FakeNative;
}

/** A scripted fetch: replies in order, records every request, ignores the signal (runTurn must not rely on it). */
export function createFakeFetch(replies: FakeReply[]): {
  fetch: (url: string, init: RequestInit) => Promise<Response>;
  requests: RecordedFakeRequest[];
} {
  const requests: RecordedFakeRequest[] = [];
  const queue = [...replies];
  const fetch = async (url: string, init: RequestInit): Promise<Response> => {
    requests.push({
      url,
      headers: init.headers as Record<string, string>,
      body: JSON.parse(init.body as string) as FakeNative,
    });
    const reply = queue.shift() ?? { lines: [{ t: 'unexpected extra request' }, { end: 'stop' }] };
    if ('connectError' in reply)
      throw Object.assign(new TypeError('fetch failed'), { cause: { code: reply.connectError } });
    if ('status' in reply) return new Response('{"error":"x"}', { status: reply.status, headers: reply.headers });
    const bytes = new TextEncoder().encode(encodeLines(reply.lines));
    let sent = false;
    // pull-based so the error/close comes after the bytes were read (controller.error drops queued chunks).
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (!sent) {
          sent = true;
          controller.enqueue(bytes);
          return undefined;
        }
        if (reply.then === 'reset') {
          controller.error(Object.assign(new TypeError('terminated'), { cause: { code: 'UND_ERR_SOCKET' } }));
          return undefined;
        }
        if (reply.then === 'hang') return new Promise<void>(() => undefined);
        controller.close();
        return undefined;
      },
    });
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  };
  return { fetch, requests };
}

/** Every event the host sees, in order. */
export async function collectTurnEvents(run: AsyncIterable<TurnEvent>): Promise<TurnEvent[]> {
  const events: TurnEvent[] = [];
  for await (const event of run) events.push(event);
  return events;
}

export const textOf = (events: TurnEvent[]): string => events.map((e) => (e.type === 'text-delta' ? e.delta : '')).join('');
