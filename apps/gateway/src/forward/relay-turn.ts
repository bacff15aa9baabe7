import type { ServerResponse } from 'node:http';
import { TurnError, type Protocol, type TurnEvent, type TurnResult } from '@turnguard/core';
import { TurnOutputCollector } from '../assemble/collect-turn-output.js';
import { renderJsonBody } from '../assemble/render-json-body.js';
import { sendJson } from '../http/send-json.js';
import { selectRelayedResponseHeaders } from './forwarded-headers.js';
import type { UpstreamResponses } from './record-upstream-responses.js';
import { sendFinalFailure } from './send-final-failure.js';
import { createSseTextEncoder } from './create-sse-encoder.js';
import { DEFAULT_SSE_KEEP_ALIVE_MS, EarlySseHeaders } from './early-sse-headers.js';
import { SseResponseWriter } from './sse-response-writer.js';
import type { SseRecordRelay } from './sse-record-relay.js';
import { isPreludeEvent, type EventFilter } from './observe-turn-events.js';
import type { UpstreamObjectCapture } from './upstream-object-capture.js';
import { beforeLastRecord, discloseTurn, setTurnHeaders, turnComment, type TurnDisclosure } from './turn-disclosure.js';

export interface RelayOptions {
  response: ServerResponse;
  protocol: Protocol;
  /** runTurn's events (its one iterator: returning it stops the turn, R8.4). */
  events: AsyncIterator<TurnEvent>;
  /** Which events the client gets (retries noted for metrics, usage it did not ask for dropped). */
  keep: EventFilter;
  requestModel: string | undefined;
  /** What the upstream answered: its headers reach the client, an unrecovered error its bytes (R8.6). */
  upstream: UpstreamResponses;
  /** JSON only: the upstream's own object of the last segment, as the SDKs build it (R8.6, decisions 0234, 0235). */
  upstreamObject?: UpstreamObjectCapture;
  /** Called once, just before the first byte goes to the client (TTFB metric). */
  onFirstByte(): void;
  /** runTurn's result, read once the events are done: what the client is told about the turn (R12.4). */
  result: Promise<TurnResult>;
  /** JSON only: the answer came from a body of another protocol family (R11.1): none of the upstream's own object fits. */
  answeredByOtherFamily?: () => boolean;
}

export interface SseRelayOptions extends RelayOptions {
  /** What goes on the wire: the upstream's own records or the encoder's (it observes runTurn's bodies). */
  output: SseRecordRelay;
  /** Gap between `: keep-alive` comment lines while the upstream is silent after the headers (0: none). */
  keepAliveMs?: number;
}

const NO_EVENTS = new TurnError({ kind: 'server', code: 'GATEWAY_NO_TURN_EVENTS', retryable: false, message: 'The turn ended without a final event.' });

/**
 * Streaming answer (R8.2, R8.3). Events are held back only until the first one
 * the client must see: a turn that fails before any output (a 400, exhausted
 * retries) is answered with an HTTP error status in the protocol's shape, as
 * the upstream itself would; otherwise `200` + SSE written as it arrives —
 * the upstream's own records, or the adapter's encoding from a splice point on
 * (SseRecordRelay) — backpressure respected. A final
 * failure after that is the encoder's own error event (Chat: error then
 * `[DONE]`, never a fake `stop`; Messages `event: error`; Responses `error` +
 * `response.failed`).
 */
export async function relayTurnAsSse(options: SseRelayOptions): Promise<void> {
  const headers = new EarlySseHeaders(options.response, options.keepAliveMs ?? DEFAULT_SSE_KEEP_ALIVE_MS, options.onFirstByte);
  // Status and headers go out as soon as segment 1 is a stream (R8.2, decision 0233).
  options.upstream.onFirstOk = (seen) => headers.send(seen.headers);
  const writer = await startOutput(options, headers);
  if (writer !== undefined) await relayRest(options, writer);
}

/**
 * The events up to the first one the client must see (retries and block
 * starts are held back); undefined when the turn was already answered here:
 * its failure before any output, or a client that left.
 */
async function holdUntilVisible(options: SseRelayOptions, headers: EarlySseHeaders): Promise<TurnEvent[] | undefined> {
  const { events: iterator, keep } = options;
  const held: TurnEvent[] = [];
  for (;;) {
    const next = await iterator.next();
    if (next.done === true) {
      failBeforeOutput(options, headers, NO_EVENTS, discloseTurn(await options.result));
      return undefined;
    }
    if (!keep(next.value)) continue;
    held.push(next.value);
    if (!isPreludeEvent(next.value)) break;
  }
  const first = held[held.length - 1]!;
  if (first.type === 'error') {
    await iterator.return?.();
    failBeforeOutput(options, headers, first.error, discloseTurn(await options.result));
    return undefined;
  }
  if (options.response.destroyed) {
    await iterator.return?.();
    return undefined;
  }
  return held;
}

/**
 * Up to the first byte: the held events and the records behind them go out
 * with the head. Returns the writer the rest of the stream goes through, or
 * undefined when the turn was answered (or the client left) before any output.
 */
async function startOutput(options: SseRelayOptions, headers: EarlySseHeaders): Promise<SseResponseWriter | undefined> {
  let held: TurnEvent[] | undefined;
  try {
    held = await holdUntilVisible(options, headers);
    // The upstream's own headers (request ids, rate limits) as a direct client gets them (R8.6).
    if (held !== undefined) headers.send(options.upstream.firstOk?.headers ?? {});
  } finally {
    // No comment lines once the protocol's own bytes flow, nor after the turn was answered or failed.
    headers.stopKeepAlive();
  }
  if (held === undefined) return undefined;
  const writer = new SseResponseWriter(options.response);
  try {
    options.output.start(held, (chunk) => writer.write(chunk));
  } catch {
    // The output failed before its first byte (an encoder, or the relay inside a record callback).
    writer.destroy();
    await options.events.return?.();
    return undefined;
  }
  return writer;
}

/**
 * The rest of the stream: pulls runTurn only when the socket can take more
 * (backpressure, so a slow client slows the upstream read instead of growing
 * memory), writes what the output makes of each event, and ends with the
 * protocol's proper end. No generator between runTurn and the socket: each
 * layer would add a promise and its callback per event.
 */
async function relayRest(options: SseRelayOptions, writer: SseResponseWriter): Promise<void> {
  const { response, events: iterator, keep, output } = options;
  let finished = false;
  try {
    for (;;) {
      const blocked = writer.whenWritable();
      if (blocked !== undefined) await blocked;
      if (response.destroyed) break;
      const next = await iterator.next();
      if (next.done === true) {
        finished = true;
        break;
      }
      if (keep(next.value)) output.event(next.value);
    }
    if (finished) {
      // The turn has ended: its result is settled, and its comment goes before the protocol's end (R12.4).
      output.finish(turnComment(discloseTurn(await options.result)));
      writer.end();
    }
  } catch {
    // The output failed mid-stream (an encoder, or the relay inside a record callback): nothing well-formed can follow.
    writer.destroy();
  } finally {
    // Left early (client gone, encoder failure): stopping the source stops the turn (R8.4).
    if (!finished) await iterator.return?.();
  }
}

/**
 * The turn failed before any output. Headers not sent yet: an HTTP error, as
 * the upstream itself would answer. Already sent (segment 1 was a stream, then
 * cut before output and every retry failed): the protocol's own error
 * ending, as after output.
 */
function failBeforeOutput(options: SseRelayOptions, headers: EarlySseHeaders, error: TurnError, disclosure: TurnDisclosure): void {
  const { response } = options;
  if (response.destroyed) return;
  if (!headers.sent) {
    options.onFirstByte();
    setTurnHeaders(response, disclosure);
    sendFinalFailure(response, options.protocol, error, options.upstream);
    return;
  }
  headers.stopKeepAlive();
  const encoder = createSseTextEncoder(options.protocol);
  response.end(beforeLastRecord(encoder.encodeEvent({ type: 'error', error }) + encoder.finish(), turnComment(disclosure)));
}

/**
 * Non-streaming answer: the turn still streams upstream (so R4 recovery
 * works); the client gets the protocol's JSON body at the end, or on a final
 * failure a JSON error (R8.3). The turn runs with `outputHeldUntilEnd`: an
 * attempt that broke mid-text is dropped and restarted, since none of it
 * reached the client (R11.2, decision 0430).
 */
export async function relayTurnAsJson(options: RelayOptions): Promise<void> {
  const collector = new TurnOutputCollector();
  const { events, keep } = options;
  try {
    for (let next = await events.next(); next.done !== true; next = await events.next()) if (keep(next.value)) collector.add(next.value);
  } catch (error) {
    // As `for await` would: a failure while collecting stops the turn (R8.4).
    await events.return?.();
    throw error;
  }
  if (options.response.destroyed) return;
  const disclosure = discloseTurn(await options.result);
  options.onFirstByte();
  setTurnHeaders(options.response, disclosure);
  const error = collector.output.error;
  if (error !== undefined) {
    sendFinalFailure(options.response, options.protocol, error, options.upstream);
    return;
  }
  // A recovered answer is segment 2's: its headers, as its ids (R8.6).
  const headers = selectRelayedResponseHeaders(options.upstream.lastOk?.headers ?? {});
  const { output } = collector;
  const foreign = options.answeredByOtherFamily?.() === true;
  if (output.failedOver || foreign) {
    // R11.7: the model that answered names the answer; another family's response id is none the client's protocol knows.
    const result = await options.result;
    if (result.model !== undefined) output.model = result.model;
    if (foreign) output.responseId = undefined;
  }
  const rendered = renderJsonBody(options.protocol, output, options.requestModel);
  // The upstream's own object only when the answering body spoke the client's protocol (R8.6, R11.1).
  const body = foreign ? rendered : (options.upstreamObject?.bodyFor(rendered, output.recovered || output.continued, output.continued) ?? rendered);
  sendJson(options.response, 200, body, headers);
}
