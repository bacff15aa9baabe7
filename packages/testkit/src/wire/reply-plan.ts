import type { Protocol } from '@turnguard/core';
import type { Scenario, StreamErrorSpec } from '../scenario/scenario.js';
import { renderChatJson, renderChatStream, renderChatStreamError } from './chat-wire.js';
import { getRequestIdHeaderName, makeHttpErrorBody } from './error-bodies.js';
import { renderMessagesJson, renderMessagesStream, renderMessagesStreamError } from './messages-wire.js';
import { renderResponsesJson, renderResponsesStream, renderResponsesStreamError } from './responses-wire.js';
import { encodeRecord, type RenderContext, type RenderedStream, type SseRecord } from './sse.js';

/** Everything a server needs to play one reply, independent of msw or node:http. */
export interface ReplyPlan {
  /** Destroy the socket before any response header (loopback) / network error (msw). */
  destroyBeforeHeaders: boolean;
  status: number;
  headers: Record<string, string>;
  /** Body pieces, one per SSE record (or the whole JSON body), already cut. */
  chunks: Uint8Array[];
  /** Wait before each chunk (setTimeout). */
  chunkDelayMs: number;
  /** After the last chunk: close the body cleanly, or destroy the socket. */
  end: 'close' | 'destroy';
}

const DEFAULT_MODELS: Record<Protocol, string> = {
  chat: 'gpt-4.1-nano-2025-04-14',
  messages: 'claude-sonnet-4-5-20250929',
  responses: 'gpt-5.1',
};

/** Unix seconds from the real openai-text recording, so output is deterministic. */
const CREATED_AT = 1770933892;

const encoder = new TextEncoder();

function renderStream(scenario: Scenario, context: RenderContext): RenderedStream {
  switch (scenario.protocol) {
    case 'chat':
      return renderChatStream(scenario, context);
    case 'messages':
      return renderMessagesStream(scenario, context);
    case 'responses':
      return renderResponsesStream(scenario, context);
    default: {
      const _exhaustive: never = scenario.protocol;
      throw new Error(`unknown protocol ${String(_exhaustive)}`);
    }
  }
}

function renderStreamError(scenario: Scenario, error: StreamErrorSpec, context: RenderContext, contentCount: number): SseRecord[] {
  if (scenario.protocol === 'chat') return renderChatStreamError(error);
  if (scenario.protocol === 'messages') return renderMessagesStreamError(error);
  return renderResponsesStreamError(error, context, contentCount);
}

function renderJson(scenario: Scenario, context: RenderContext): unknown {
  if (scenario.protocol === 'chat') return renderChatJson(scenario, context);
  if (scenario.protocol === 'messages') return renderMessagesJson(scenario, context);
  return renderResponsesJson(scenario, context);
}

/** Keeps whole chunks up to `limit` bytes and the first part of the chunk that crosses it (may split a UTF-8 sequence, as a real cut does). */
function cutChunksAtBytes(chunks: Uint8Array[], limit: number): Uint8Array[] {
  const kept: Uint8Array[] = [];
  let remaining = limit;
  for (const chunk of chunks) {
    if (remaining <= 0) break;
    kept.push(chunk.byteLength <= remaining ? chunk : chunk.subarray(0, remaining));
    remaining -= chunk.byteLength;
  }
  return kept;
}

export interface PlanInput {
  scenario: Scenario;
  /** The parsed request body (undefined when it was not JSON). */
  requestBody: unknown;
  serial: number;
}

function readModel(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const model = (body as Record<string, unknown>).model;
  return typeof model === 'string' && model !== '' ? model : undefined;
}

/** Streams only when the request asked for it (`stream: true`), like the real APIs. */
export function isStreamingRequest(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as Record<string, unknown>).stream === true;
}

export function planReply({ scenario, requestBody, serial }: PlanInput): ReplyPlan {
  const context: RenderContext = {
    model: scenario.model ?? readModel(requestBody) ?? DEFAULT_MODELS[scenario.protocol],
    serial,
    createdAt: CREATED_AT,
  };
  const requestId = `req_${serial.toString().padStart(6, '0')}testkit`;
  const baseHeaders = { [getRequestIdHeaderName(scenario.protocol)]: requestId, ...scenario.headers };
  const plan = (status: number, headers: Record<string, string>, chunks: Uint8Array[], end: 'close' | 'destroy' = 'close'): ReplyPlan => ({
    destroyBeforeHeaders: false,
    status,
    headers: { ...baseHeaders, ...headers },
    chunks,
    chunkDelayMs: scenario.chunkDelayMs,
    end,
  });
  const jsonPlan = (status: number, body: unknown, extraHeaders: Record<string, string> = {}): ReplyPlan =>
    plan(status, { 'content-type': 'application/json', ...extraHeaders }, [encoder.encode(JSON.stringify(body))]);

  const ending = scenario.ending;
  if (ending.kind === 'destroy-before-headers') return { ...plan(0, {}, []), destroyBeforeHeaders: true };
  if (ending.kind === 'http-error') {
    return jsonPlan(ending.error.status, makeHttpErrorBody(scenario.protocol, ending.error, requestId), ending.error.headers);
  }

  if (!isStreamingRequest(requestBody)) {
    if (ending.kind === 'stream-error') {
      // A non-streaming request cannot get an in-stream error: the same failure arrives as an HTTP error.
      const status = ending.error.type === 'overloaded_error' ? 529 : 500;
      const spec = { status, headers: {}, body: undefined, ...ending.error };
      return jsonPlan(status, makeHttpErrorBody(scenario.protocol, spec, requestId));
    }
    const full = jsonPlan(200, renderJson(scenario, context));
    if (ending.kind === 'finish') return full;
    const bodyLength = full.chunks[0]?.byteLength ?? 0;
    const limit = ending.afterBytes ?? Math.floor(bodyLength / 2);
    return { ...full, chunks: cutChunksAtBytes(full.chunks, limit), end: ending.how === 'destroy' ? 'destroy' : 'close' };
  }

  const rendered = renderStream(scenario, context);
  const sseHeaders = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' };
  const encode = (records: SseRecord[]): Uint8Array[] => records.map((record) => encoder.encode(encodeRecord(record)));
  switch (ending.kind) {
    case 'finish':
      return plan(200, sseHeaders, encode([...rendered.content, ...rendered.terminal]));
    case 'stream-error': {
      const errorRecords = renderStreamError(scenario, ending.error, context, rendered.content.length);
      return plan(200, sseHeaders, encode([...rendered.content, ...errorRecords]));
    }
    case 'cut': {
      // A cut never includes a terminal frame: it is taken from the content records only.
      const records = ending.afterEvents === undefined ? rendered.content : rendered.content.slice(0, ending.afterEvents);
      const chunks = encode(records);
      const cut = ending.afterBytes === undefined ? chunks : cutChunksAtBytes(chunks, ending.afterBytes);
      return plan(200, sseHeaders, cut, ending.how === 'destroy' ? 'destroy' : 'close');
    }
    default: {
      const _exhaustive: never = ending;
      throw new Error(`unknown ending ${String(_exhaustive)}`);
    }
  }
}
