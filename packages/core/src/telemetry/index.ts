export type { TurnTelemetryOptions } from './turn-telemetry-options.js';
export { preloadTurnTelemetry } from './record-turn-telemetry.js';
export type {
  OtelApi,
  OtelAttributeValue,
  OtelAttributes,
  OtelContext,
  OtelCounter,
  OtelHistogram,
  OtelInstrumentOptions,
  OtelMeter,
  OtelSpan,
  OtelSpanOptions,
  OtelTracer,
} from './otel-api.js';
