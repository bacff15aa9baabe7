import type { Protocol } from '../adapter/protocol-adapter.js';
import type { SegmentRecord, TurnResult } from '../turn/turn-result.js';
import { loadOtelApi, useOtelApi, type OtelApi, type OtelAttributes } from './otel-api.js';
import { instrumentsFor, type TurnInstruments } from './turn-instruments.js';
import {
  commonAttributes,
  destinationKey,
  pickConventions,
  protocolOf,
  providerOf,
  readServer,
  serverOf,
  requestSpanAttributes,
  safeName,
  timeToFirstChunk,
  tokenCounts,
  turnSpanAttributes,
  type FinishedTurn,
  type GenAiConventions,
  type ServerAddress,
} from './turn-attributes.js';
import type { TurnTelemetryOptions } from './turn-telemetry-options.js';

/** What a turn tells its telemetry: the Turn object fits this shape. */
export interface TelemetrySource {
  readonly options: { readonly telemetry: TurnTelemetryOptions | false | undefined; readonly adapter: { readonly protocol: Protocol } };
  readonly model: string;
  readonly target: { readonly baseUrl: string };
  readonly startedAt: number;
  /** A fail-over chain's destinations (R11): where each named upstream is; the host's own has no target of its own. */
  readonly chainRun?: { readonly chain: { readonly destinations: ReadonlyArray<{ readonly upstream: string; readonly target: { readonly baseUrl: string } | undefined }> } } | undefined;
}

const SCOPE = '@turnguard/core';

/**
 * Loads `@opentelemetry/api` now; resolves true when it is installed. A host
 * that shuts its SDK down soon after a turn (a server's close) awaits this
 * once at start: each turn's telemetry then follows its end within the same
 * tick instead of waiting for the module to load. A host that imported the
 * API itself passes it: core uses that module, which also serves a bundled
 * host whose core could not import the package from where it runs.
 */
export async function preloadTurnTelemetry(api?: OtelApi): Promise<boolean> {
  if (api !== undefined) useOtelApi(api);
  return (await loadOtelApi()) !== undefined;
}

/**
 * Reports a turn that has ended (R12.1), from its result alone: the turn
 * span and its physical requests' spans get the times the turn recorded, so
 * nothing runs while the turn streams. Fire and forget: the API is loaded
 * once, and a failure here never touches the turn.
 */
export function recordTurnTelemetry(source: TelemetrySource, result: TurnResult): void {
  const { telemetry } = source.options;
  if (telemetry === false) return;
  // Registered now: an AsyncLocalStorage context manager hands the turn's own context to the callback.
  loadOtelApi().then(
    (api) => {
      if (api === undefined) return;
      const turn: FinishedTurn = {
        protocol: source.options.adapter.protocol,
        requestModel: source.model,
        server: readServer(source.target.baseUrl),
        servers: serversOf(source),
        startedAt: source.startedAt,
        result,
      };
      emitTurnTelemetry(api, telemetry ?? {}, turn);
    },
    () => undefined,
  );
}

/** Each chain upstream's host and port, read once per turn from its base URL. */
function serversOf(source: TelemetrySource): Map<string, ServerAddress | undefined> | undefined {
  const destinations = source.chainRun?.chain.destinations;
  if (destinations === undefined) return undefined;
  const servers = new Map<string, ServerAddress | undefined>();
  for (const destination of destinations) {
    if (!servers.has(destination.upstream)) servers.set(destination.upstream, readServer((destination.target ?? source.target).baseUrl));
  }
  return servers;
}

export function emitTurnTelemetry(api: OtelApi, options: TurnTelemetryOptions, turn: FinishedTurn): void {
  try {
    const conventions = pickConventions(options.semconvStabilityOptIn ?? readEnvironmentOptIn());
    emitSpans(api, options, turn, conventions);
    recordMetrics(instrumentsFor(options.meter ?? api.metrics.getMeter(SCOPE), conventions), turn);
  } catch {
    // Telemetry is best effort: a broken exporter or SDK never reaches the host's turn.
  }
}

function readEnvironmentOptIn(): string | undefined {
  return (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.OTEL_SEMCONV_STABILITY_OPT_IN;
}

function emitSpans(api: OtelApi, options: TurnTelemetryOptions, turn: FinishedTurn, conventions: GenAiConventions): void {
  const tracer = options.tracer ?? api.trace.getTracer(SCOPE);
  const { result } = turn;
  const model = safeName(turn.requestModel === 'unknown' ? undefined : turn.requestModel);
  const span = tracer.startSpan(
    model === undefined ? 'chat' : `chat ${model}`,
    { kind: api.SpanKind.CLIENT, startTime: turn.startedAt, attributes: defined(turnSpanAttributes(turn, conventions)) },
    options.parentContext ?? api.context.active(),
  );
  if (result.outcome === 'error') span.setStatus({ code: api.SpanStatusCode.ERROR });
  const parent = api.trace.setSpan(options.parentContext ?? api.context.active(), span);
  // R1 retries resend to the same upstream and model; a fallback's first request is a new request (R11).
  const sent = new Map<string, number>();
  for (const segment of result.segments) {
    const key = destinationKey(segment);
    const resendCount = segment.segmentIndex === 0 ? (sent.get(key) ?? 0) : 0;
    if (segment.segmentIndex === 0) sent.set(key, resendCount + 1);
    const child = tracer.startSpan(
      'POST',
      { kind: api.SpanKind.CLIENT, startTime: segment.startedAt, attributes: defined(requestSpanAttributes(turn, segment, resendCount, conventions)) },
      parent,
    );
    if (segment.outcome !== 'ok') child.setStatus({ code: api.SpanStatusCode.ERROR });
    child.end(segment.startedAt + segment.durationMs);
  }
  span.end(turn.startedAt + result.durationMs);
}

function recordMetrics(instruments: TurnInstruments, turn: FinishedTurn): void {
  const { result } = turn;
  const common = commonAttributes(turn);
  const errorType = safeName(result.error?.code);
  instruments.duration.record(result.durationMs / 1000, defined({ ...common, 'error.type': errorType }));
  const ttfc = timeToFirstChunk(turn);
  if (ttfc !== undefined) instruments.timeToFirstChunk.record(ttfc, defined(common));
  for (const segment of result.segments) {
    // Where this request went: after a fallback, another server, family and model than the turn's answer (R11).
    const server = serverOf(turn, segment);
    const request = { ...common, ...requestPlace(turn, segment, server, common) };
    instruments.physicalRequests.add(1, defined({ ...request, 'turnguard.outcome': segment.outcome, 'error.type': segment.outcome === 'ok' ? undefined : safeName(segment.errorCode) }));
    // Per physical request: its own reported counts, exact; a request that reported none adds nothing (R5.1).
    recordTokens(instruments, tokenCounts(protocolOf(turn, segment), segment.usage), defined(request));
  }
  if (result.recovery !== undefined) instruments.recoveries.add(1, defined({ ...common, 'turnguard.recovery': result.recovery.recovered ? 'recovered' : 'failed' }));
  // R11.7: moves to another chain entry, and the one continuation, by the turn's requested and answering model.
  if ((result.fallbacks ?? 0) > 0) instruments.fallbacks.add(result.fallbacks!, defined(common));
  if (result.continued === true) instruments.continuations.add(1, defined(common));
}

/** The provider, server and reported model of one physical request, for its metric points. */
function requestPlace(turn: FinishedTurn, segment: SegmentRecord, server: ServerAddress | undefined, common: OtelAttributes): OtelAttributes {
  // A request whose upstream named no model: the turn's answering model when it is this request's, else none.
  const answering = turn.result.chain === undefined || segment.model === turn.result.model;
  return {
    'gen_ai.provider.name': providerOf(protocolOf(turn, segment)),
    'gen_ai.response.model': safeName(segment.responseModel) ?? (answering ? common['gen_ai.response.model'] : undefined),
    'server.address': server?.address,
    'server.port': server?.port,
  };
}

function recordTokens(instruments: TurnInstruments, counts: ReturnType<typeof tokenCounts>, attributes: OtelAttributes): void {
  const { tokenUsage, usageCounters, operationTokens } = instruments;
  if (tokenUsage !== undefined) {
    if (counts.input !== undefined) tokenUsage.record(counts.input, { ...attributes, 'gen_ai.token.type': 'input' });
    if (counts.output !== undefined) tokenUsage.record(counts.output, { ...attributes, 'gen_ai.token.type': 'output' });
  }
  if (usageCounters !== undefined) {
    // Our counts carry no modality: the conventions' `unknown`.
    const withModality = { ...attributes, 'gen_ai.token.modality': 'unknown' };
    for (const kind of ['input', 'output', 'cacheRead', 'cacheWrite', 'reasoning'] as const) {
      const count = counts[kind];
      if (count !== undefined) usageCounters[kind].add(count, withModality);
    }
  }
  if (operationTokens !== undefined) {
    if (counts.input !== undefined) operationTokens.input.record(counts.input, attributes);
    if (counts.output !== undefined) operationTokens.output.record(counts.output, attributes);
  }
}

/** Attributes without the ones that are unknown: an absent attribute, never an empty or 0 one. */
function defined(attributes: OtelAttributes): OtelAttributes {
  const kept: OtelAttributes = {};
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) kept[key] = value;
  return kept;
}
