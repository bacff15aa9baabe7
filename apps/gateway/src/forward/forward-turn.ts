import type { IncomingMessage, ServerResponse } from 'node:http';
import { runTurn, TurnError, type ResponseBodyInfo, type CircuitBreakers, type DebugDump, type FetchFunction, type Protocol, type RetryBudget, type StatsSink, type TurnResult } from '@turnguard/core';
import type { GatewayConfig } from '../config/gateway-config.js';
import { parseJsonObject, readRequestBody } from '../http/read-request-body.js';
import { sendProtocolError } from '../http/send-json.js';
import type { GatewayMetrics } from '../metrics/gateway-metrics.js';
import type { WatchTurn } from '../logging/turn-watch.js';
import { selectAdapter } from '../protocol-routes.js';
import { dropUnsignedThinking } from './drop-unsigned-thinking.js';
import { createEventFilter } from './observe-turn-events.js';
import { relayTurnAsJson, relayTurnAsSse, type RelayOptions } from './relay-turn.js';
import { SseRecordRelay } from './sse-record-relay.js';
import { TurnStatsSink } from './turn-stats-sink.js';
import { planTurnRoute, type TurnRoute } from './plan-turn-route.js';
import type { RoutingTable } from '../routing/routing-table.js';
import type { ResponseIdChains } from './response-id-chains.js';
import { noteRefusal } from '../logging/access-log.js';
import { UpstreamResponses } from './record-upstream-responses.js';
import { captureUpstreamObject } from './upstream-object-capture.js';
import type { GatewayLogger } from '../logging/create-gateway-logger.js';
import type { GatewayTelemetry } from '../telemetry/start-gateway-telemetry.js';

export interface ForwardContext {
  config: GatewayConfig;
  /** Upstream base URL per protocol (the mock's when `--mock`). */
  upstreams: Record<Protocol, string>;
  env: Record<string, string | undefined>;
  sink: StatsSink;
  metrics: GatewayMetrics;
  /** Retries, first byte and the result of each turn, for the logs and metrics (R12.2, R12.3). */
  watchTurn: WatchTurn;
  /** The upstream transport (createNodeHttpFetch unless the host gave one). */
  fetch: FetchFunction;
  now: () => number;
  /** Responses ids the client saw for recovered turns → the recovery responses' ids (decision 0211). */
  responseChains: ResponseIdChains;
  /** Gap between `: keep-alive` comments while a stream's upstream is silent (decision 0233); default 15 s. */
  sseKeepAliveMs?: number;
  /** R1.10, opt-in (`--debug-dumps`): persists one redacted dump per upstream 400 and returns its path. */
  writeDebugDump?: (dump: DebugDump) => Promise<string>;
  /** Where the relay's warnings go (records dropped after the end, R8.13); none: not logged. */
  logger?: GatewayLogger;
  /** R12.1: OpenTelemetry when the OTEL_* variables ask for it; undefined: off. */
  telemetry?: GatewayTelemetry;
  /** R11.1: the named upstreams, model routes and fallback chains, with the simple form's upstreams. */
  routing: RoutingTable;
  /** R11.3: the retry budget every turn gets (the interactive one, with the config's `retry` keys). */
  retryBudget: RetryBudget;
  /** R11.5: this process's circuits; undefined when turned off. */
  circuitBreakers: CircuitBreakers | undefined;
}

function wantsChatUsage(body: Record<string, unknown>): boolean {
  const options = body.stream_options;
  return typeof options === 'object' && options !== null && (options as Record<string, unknown>).include_usage === true;
}

/**
 * One forwarded request: read and check the body, resolve the upstream and
 * its key, run the logical turn (R1 retries, R4 recovery, R6 stats through
 * the sink) and relay it as SSE or JSON. Client disconnect aborts the turn,
 * which stops the current segment and prevents any recovery request (R8.4).
 */
export async function forwardTurn(protocol: Protocol, request: IncomingMessage, response: ServerResponse, context: ForwardContext): Promise<void> {
  const receivedAt = performance.now();
  const rejectRequest = (error: TurnError): void => {
    context.metrics.rejected.inc({ code: error.code });
    noteRefusal(response, error.code);
    sendProtocolError(response, protocol, error, error.status ?? 400);
  };
  let body: Record<string, unknown>;
  // The client's bytes, sent as they are when nothing changes the request (R8.2); handed to the turn, not held here (decision 0322).
  let bodyBytes: Buffer | undefined;
  try {
    bodyBytes = await readRequestBody(request, context.config.maxBodyBytes);
    body = parseJsonObject(bodyBytes);
  } catch (error) {
    if (TurnError.isInstance(error)) {
      if (error.status === 413) response.setHeader('connection', 'close');
      rejectRequest(error);
    } else response.destroy();
    return;
  }
  let route: TurnRoute;
  try {
    route = planTurnRoute({ table: context.routing, protocol, body, headers: request.headers, requestUrl: request.url, env: context.env, mock: context.config.mock });
  } catch (error) {
    rejectRequest(error as TurnError);
    return;
  }
  // The access log and metrics name the model as the client asked for it; the body carries the upstream's name for it.
  const clientModel = typeof body.model === 'string' ? body.model : undefined;
  const parsedBody = body;
  body = route.body;

  // Client disconnect stops the turn through its own iterator (R8.4): returning it aborts the
  // current segment and rules out a recovery, so the gateway needs no AbortController of its own.
  let clientGone = false;
  let stopTurn: (() => void) | undefined;
  const onClose = (): void => {
    if (response.writableFinished) return;
    clientGone = true;
    stopTurn?.();
  };
  response.once('close', onClose);
  if (protocol === 'responses' && typeof body.previous_response_id === 'string') {
    body = { ...body, previous_response_id: context.responseChains.resolve(body.previous_response_id) };
  }
  const adapter = selectAdapter(protocol);
  // Only a stream can leave usage out: a non-streaming chat.completion always carries it, as OpenAI's does.
  const dropUsage = protocol === 'chat' && body.stream === true && !wantsChatUsage(body);
  const upstream = new UpstreamResponses();
  const stats = new TurnStatsSink(context.sink, upstream);
  // Streaming: the upstream's own records, as core's framer read them, judged one by one (R8.13).
  const output = body.stream === true ? new SseRecordRelay({ protocol, clientWantsUsage: !dropUsage, onDroppedAfterEnd: () => stats.noteDroppedAfterEnd() }) : undefined;
  // JSON: the upstream's own object is what the client gets (R8.6, decisions 0234, 0235), read from the same records;
  // a body of another family (R11.1) is never read as the client's.
  const upstreamObject = output === undefined ? captureUpstreamObject(protocol, () => stats.noteDroppedAfterEnd()) : undefined;
  let lastBodyForeign = false;
  const observeBody = (info: ResponseBodyInfo) => {
    lastBodyForeign = info.protocol !== undefined && info.protocol !== protocol;
    if (output !== undefined) return output.observeBody(info);
    return lastBodyForeign ? undefined : upstreamObject!.observeBody(info);
  };
  const requestModel = typeof body.model === 'string' ? body.model : undefined;
  const watch = context.watchTurn(protocol, response, clientModel);
  const turnRequest = protocol === 'messages' ? dropUnsignedThinking(body) : body;
  // Only the client's own object is its bytes: another model's name, a resolved previous_response_id or dropped thinking made a new one.
  if (turnRequest !== parsedBody) bodyBytes = undefined;
  let run;
  try {
    run = runTurn({
      adapter,
      request: turnRequest,
      ...(bodyBytes === undefined ? {} : { requestBytes: bodyBytes }),
      target: route.target,
      ...(route.targetAdapter === undefined ? {} : { targetAdapter: route.targetAdapter }),
      upstream: route.upstream,
      ...(route.prefill === undefined ? {} : { prefill: route.prefill }),
      fallbacks: route.fallbacks,
      retryBudget: context.retryBudget,
      timeLimits: context.config.timeLimits,
      continuation: context.config.continuation,
      ...(context.circuitBreakers === undefined ? {} : { circuitBreakers: context.circuitBreakers }),
      // A JSON client sees nothing until the end: a failed attempt is dropped and restarted (R11.2, decision 0430).
      outputHeldUntilEnd: output === undefined,
      fetch: upstream.wrap(context.fetch),
      // runTurn redacts a dump by this request's own credential values (its target's key and headers).
      retry: {
        ...context.config.retry,
        onRetry: watch.onRetry,
        ...(context.writeDebugDump === undefined ? {} : { debugDump: { describeRequest: () => body, write: context.writeDebugDump } }),
      },
      streamRecovery: context.config.streamRecovery,
      stats,
      now: context.now,
      observeSseRecords: observeBody,
      telemetry: context.telemetry?.forRequest(request) ?? false,
    });
  } catch (error) {
    rejectRequest(TurnError.isInstance(error) ? error : new TurnError({ kind: 'invalid_request', message: 'The request could not be forwarded.', cause: error }));
    return;
  } finally {
    // The turn has them now, until its first request is sent: this request does not hold its prompt while it streams.
    bodyBytes = undefined;
  }
  watch.settle(run.result);
  const keep = createEventFilter({ dropUsage, onFallback: (event) => context.metrics.recordFallback(protocol, event.from.model, event.to.model, event.errorCode ?? event.reason) });
  // runTurn's one iterator: the relay pulls it directly; `keep` is a predicate it calls, not a second iterator around it.
  const events = run[Symbol.asyncIterator]();
  // Returning the events stops the turn at once, even while the relay awaits the next one:
  // the current segment is aborted and no recovery follows (runTurn's consumer stop).
  stopTurn = () => void events.return?.();
  if (clientGone) stopTurn();
  const onFirstByte = (): void => {
    const seconds = (performance.now() - receivedAt) / 1000;
    // Recorded after the first byte's write went out: the histogram's label work is not on the TTFB path.
    setImmediate(() => watch.onFirstByte(seconds));
  };
  const relay: RelayOptions = { response, protocol, events, keep, requestModel, upstream, upstreamObject, onFirstByte, result: run.result };
  try {
    if (output !== undefined) await relayTurnAsSse({ ...relay, output, keepAliveMs: context.sseKeepAliveMs });
    else await relayTurnAsJson({ ...relay, answeredByOtherFamily: () => lastBodyForeign });
  } finally {
    response.off('close', onClose);
    if (stats.droppedAfterEnd > 0) {
      context.logger?.warn({ protocol, code: 'RELAY_DROPPED_AFTER_END', records: stats.droppedAfterEnd }, 'records after the end of the upstream response were dropped');
    }
    // The turn is recorded (R6.2) on every path, including a client that left, before this settles.
    const result = await run.result;
    if (protocol === 'responses' && body.store !== false) rememberRecoveredResponse(result, context.responseChains);
    if (result.continued === true) context.metrics.recordContinuation(protocol, result.model ?? clientModel ?? 'none', result.outcome === 'ok' ? 'completed' : 'failed');
  }
}

/** After a recovered Responses turn: the id the client saw (segment 1's last attempt) → the recovery response's id. */
function rememberRecoveredResponse(result: TurnResult, chains: ResponseIdChains): void {
  if (result.recovery?.recovered !== true) return;
  let shown: string | undefined;
  let recovered: string | undefined;
  for (const segment of result.segments) {
    if (segment.segmentIndex === 0 && segment.streamed) shown = segment.responseId;
    else if (segment.segmentIndex === 1) recovered = segment.responseId;
  }
  if (shown !== undefined && recovered !== undefined) chains.remember(shown, recovered);
}
