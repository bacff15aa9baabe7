import type { ServerResponse } from 'node:http';
import { TurnError, type Protocol, type ProtocolAdapter, type TurnEvent } from '@turnguard/core';
import { TurnOutputCollector } from '../assemble/collect-turn-output.js';
import { renderJsonBody } from '../assemble/render-json-body.js';
import { sendJson, sendProtocolError } from '../http/send-json.js';
import { createSseTextEncoder } from './create-sse-encoder.js';
import { isPreludeEvent } from './observe-turn-events.js';

export interface RelayOptions {
  response: ServerResponse;
  protocol: Protocol;
  adapter: ProtocolAdapter<object>;
  events: AsyncIterable<TurnEvent>;
  requestModel: string | undefined;
  /** Called once, just before the first byte goes to the client (TTFB metric). */
  onFirstByte(): void;
}

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
} as const;

function waitForDrain(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}

async function* replay(first: TurnEvent[], rest: AsyncIterator<TurnEvent>): AsyncGenerator<TurnEvent, void, undefined> {
  try {
    yield* first;
    for (;;) {
      const next = await rest.next();
      if (next.done === true) return;
      yield next.value;
    }
  } finally {
    // The encoder stopped early (client gone): stopping the source stops the turn (R8.4).
    await rest.return?.();
  }
}

const NO_EVENTS = new TurnError({ kind: 'server', code: 'GATEWAY_NO_TURN_EVENTS', retryable: false, message: 'The turn ended without a final event.' });

/**
 * Streaming answer (R8.2, R8.3). Events are held back only until the first one
 * the client must see: a turn that fails before any output (a 400, exhausted
 * retries) is answered with an HTTP error status in the protocol's shape, as
 * the upstream itself would; otherwise `200` + SSE, each event encoded by the
 * adapter and written as soon as it arrives, backpressure respected. A final
 * failure after that is the encoder's own error event (Chat: error then
 * `[DONE]`, never a fake `stop`; Messages `event: error`; Responses `error` +
 * `response.failed`).
 */
export async function relayTurnAsSse(options: RelayOptions): Promise<void> {
  const { response } = options;
  const iterator = options.events[Symbol.asyncIterator]();
  const held: TurnEvent[] = [];
  for (;;) {
    const next = await iterator.next();
    if (next.done === true) {
      sendProtocolError(response, options.protocol, NO_EVENTS);
      return;
    }
    held.push(next.value);
    if (!isPreludeEvent(next.value)) break;
  }
  const first = held[held.length - 1]!;
  if (first.type === 'error') {
    await iterator.return?.();
    if (!response.destroyed) options.onFirstByte();
    sendProtocolError(response, options.protocol, first.error);
    return;
  }
  if (response.destroyed) {
    await iterator.return?.();
    return;
  }
  response.writeHead(200, SSE_HEADERS);
  const source = replay(held, iterator);
  const textEncoder = createSseTextEncoder(options.protocol);
  const chunks = textEncoder === undefined ? readEncodedStream(options.adapter, source) : encodeAsText(textEncoder, source);
  let wrote = false;
  try {
    for await (const chunk of chunks) {
      if (response.destroyed) break;
      if (!wrote) {
        wrote = true;
        options.onFirstByte();
      }
      if (!response.write(chunk)) await waitForDrain(response);
    }
    // Leaving the loop early (client gone) returns the generators, which stops the turn (R8.4).
    if (!response.destroyed) response.end();
  } catch {
    // An encoder that failed mid-stream: nothing well-formed can follow; end the connection.
    response.destroy();
  }
}

async function* encodeAsText(encoder: NonNullable<ReturnType<typeof createSseTextEncoder>>, events: AsyncIterable<TurnEvent>): AsyncGenerator<string> {
  for await (const event of events) {
    const text = encoder.encode(event);
    if (text !== '') yield text;
  }
  const tail = encoder.end();
  if (tail !== '') yield tail;
}

async function* readEncodedStream(adapter: ProtocolAdapter<object>, events: AsyncIterable<TurnEvent>): AsyncGenerator<Uint8Array> {
  const reader = adapter.encodeStream(events).getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        return;
      }
      yield value;
    }
  } finally {
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/**
 * Non-streaming answer: the turn still streams upstream (so R4 recovery
 * works); the client gets the protocol's JSON body at the end, or on a final
 * failure a JSON error — 502 even when partial text had arrived (R8.3).
 */
export async function relayTurnAsJson(options: RelayOptions): Promise<void> {
  const collector = new TurnOutputCollector();
  for await (const event of options.events) collector.add(event);
  if (options.response.destroyed) return;
  options.onFirstByte();
  const error = collector.output.error;
  if (error !== undefined) {
    sendProtocolError(options.response, options.protocol, error);
    return;
  }
  sendJson(options.response, 200, renderJsonBody(options.protocol, collector.output, options.requestModel));
}
