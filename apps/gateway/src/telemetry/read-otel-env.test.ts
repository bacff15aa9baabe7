import { describe, expect, it } from 'vitest';
import { errorOf } from '../testing/error-of.test-helper.js';
import { readOtelEnv } from './read-otel-env.js';

describe('OTEL_* variables (R12.1)', () => {
  it('nothing set: off', () => {
    expect(readOtelEnv({})).toBeUndefined();
    expect(readOtelEnv({ OTEL_SERVICE_NAME: 'gw', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toBeUndefined();
  });

  it('an endpoint turns both signals on, protobuf by default, the metric interval as the specification defaults it', () => {
    expect(readOtelEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual({
      traces: { protocol: 'http/protobuf' },
      metrics: { protocol: 'http/protobuf', intervalMs: 60_000, timeoutMs: 30_000 },
      semconvStabilityOptIn: undefined,
    });
  });

  it("a signal's own endpoint, exporter and protocol; none turns one off", () => {
    expect(readOtelEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' })).toMatchObject({
      traces: { protocol: 'http/json' },
      metrics: undefined,
    });
    expect(readOtelEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_METRICS_EXPORTER: 'none', OTEL_SEMCONV_STABILITY_OPT_IN: 'gen_ai_latest_experimental' })).toMatchObject({
      metrics: undefined,
      semconvStabilityOptIn: 'gen_ai_latest_experimental',
    });
    expect(readOtelEnv({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_METRIC_EXPORT_INTERVAL: '5000' })).toMatchObject({ traces: { protocol: 'http/protobuf' }, metrics: undefined });
  });

  it('OTEL_SDK_DISABLED=true wins', () => {
    expect(readOtelEnv({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toBeUndefined();
  });

  it.each([
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'],
    [{ OTEL_TRACES_EXPORTER: 'zipkin' }, 'OTEL_TRACES_EXPORTER'],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_METRIC_EXPORT_INTERVAL: '10s' }, 'OTEL_METRIC_EXPORT_INTERVAL'],
  ])('what the gateway cannot honour is a start-up error naming the variable: %j', (env, option) => {
    expect(errorOf(() => readOtelEnv(env))).toMatchObject({ code: 'GATEWAY_INVALID_CONFIG', details: { option } });
  });
});
