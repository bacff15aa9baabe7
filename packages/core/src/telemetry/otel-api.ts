/**
 * The part of `@opentelemetry/api` (1.x) runTurn uses, written out so that
 * core's own types never name the package: it is an optional peer, and a
 * project without it must still compile against core (R10.2). The real API's
 * objects fit these shapes (`otel-api.types.test.ts` checks it).
 */

export type OtelAttributeValue = string | number | boolean | string[];
export type OtelAttributes = Record<string, OtelAttributeValue | undefined>;

/** An OpenTelemetry `Context` (opaque here). */
export interface OtelContext {
  getValue(key: symbol): unknown;
}

export interface OtelSpan {
  setStatus(status: { code: number; message?: string }): unknown;
  /** Epoch milliseconds. */
  end(endTime?: number): void;
}

export interface OtelSpanOptions {
  kind?: number;
  /** Epoch milliseconds. */
  startTime?: number;
  attributes?: OtelAttributes;
}

/** An OpenTelemetry `Tracer`. */
export interface OtelTracer {
  startSpan(name: string, options?: OtelSpanOptions, context?: OtelContext): OtelSpan;
}

export interface OtelHistogram {
  record(value: number, attributes?: OtelAttributes): void;
}

export interface OtelCounter {
  add(value: number, attributes?: OtelAttributes): void;
}

export interface OtelInstrumentOptions {
  description?: string;
  unit?: string;
  advice?: { explicitBucketBoundaries?: number[] };
}

/** An OpenTelemetry `Meter`. */
export interface OtelMeter {
  createHistogram(name: string, options?: OtelInstrumentOptions): OtelHistogram;
  createCounter(name: string, options?: OtelInstrumentOptions): OtelCounter;
}

/** What runTurn calls on the API module itself. */
export interface OtelApi {
  trace: {
    getTracer(name: string): OtelTracer;
    setSpan(context: OtelContext, span: OtelSpan): OtelContext;
  };
  metrics: { getMeter(name: string): OtelMeter };
  context: { active(): OtelContext };
  SpanKind: { CLIENT: number };
  SpanStatusCode: { ERROR: number };
}

/** The package name in a variable: bundlers leave an optional peer they cannot see alone. */
const OTEL_API_PACKAGE = '@opentelemetry/api';

let loading: Promise<OtelApi | undefined> | undefined;

/**
 * `@opentelemetry/api` when the host installed it, else undefined (every
 * telemetry call is then skipped). Loaded once, on the first turn that ends,
 * never on the path to the first byte.
 */
export function loadOtelApi(importApi: () => Promise<unknown> = importOtelApi): Promise<OtelApi | undefined> {
  loading ??= importApi().then(asOtelApi, () => undefined);
  return loading;
}

/** The API module a host loaded itself: used from now on instead of core's own import. */
export function useOtelApi(api: OtelApi): void {
  loading = Promise.resolve(api);
}

/** Tests only: forget what was loaded. */
export function resetOtelApiForTests(): void {
  loading = undefined;
}

function importOtelApi(): Promise<unknown> {
  return import(/* webpackIgnore: true */ /* @vite-ignore */ OTEL_API_PACKAGE);
}

/** The module namespace, or its `default` when a bundler wrapped it. */
function asOtelApi(loaded: unknown): OtelApi | undefined {
  const wrapped = typeof loaded === 'object' && loaded !== null ? (loaded as { default?: unknown }).default : undefined;
  for (const candidate of [loaded, wrapped]) if (looksLikeOtelApi(candidate)) return candidate;
  return undefined;
}

function looksLikeOtelApi(candidate: unknown): candidate is OtelApi {
  if (typeof candidate !== 'object' || candidate === null) return false;
  const api = candidate as Partial<OtelApi>;
  return typeof api.trace?.getTracer === 'function' && typeof api.metrics?.getMeter === 'function' && typeof api.context?.active === 'function';
}
