import type { OtelContext, OtelMeter, OtelTracer } from './otel-api.js';

/**
 * Where runTurn reports a finished turn to OpenTelemetry (R12.1): one span
 * per logical turn with a child span per physical request, and the GenAI
 * client metrics. Needs `@opentelemetry/api` (an optional peer); without it
 * nothing is reported.
 */
export interface TurnTelemetryOptions {
  /** Default: the global tracer provider's `@turnguard/core` tracer. */
  tracer?: OtelTracer;
  /** Default: the global meter provider's `@turnguard/core` meter. */
  meter?: OtelMeter;
  /** The turn span's parent, e.g. the context a server extracted from its client's `traceparent`. Default: the active context. */
  parentContext?: OtelContext;
  /**
   * `OTEL_SEMCONV_STABILITY_OPT_IN`'s value (default: the environment's).
   * With `gen_ai_latest_experimental` the newest GenAI conventions are
   * emitted instead of the v1.41 ones.
   */
  semconvStabilityOptIn?: string;
}
