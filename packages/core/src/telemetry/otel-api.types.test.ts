import * as api from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import type { OtelApi, OtelContext, OtelMeter, OtelTracer } from './otel-api.js';
import type { TurnTelemetryOptions } from './turn-telemetry-options.js';

describe('the written-out API shapes (R10.2)', () => {
  it('the real @opentelemetry/api objects fit them, so a host passes its own without a cast', () => {
    const tracer: OtelTracer = api.trace.getTracer('t');
    const meter: OtelMeter = api.metrics.getMeter('m');
    const parentContext: OtelContext = api.context.active();
    const module: OtelApi = api;
    const options: TurnTelemetryOptions = { tracer, meter, parentContext };
    expect(options.tracer).toBe(tracer);
    expect(module.SpanKind.CLIENT).toBe(api.SpanKind.CLIENT);
  });
});
