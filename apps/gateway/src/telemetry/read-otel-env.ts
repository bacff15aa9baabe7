import { rejectConfig } from '../config/gateway-config.js';

/** The OTLP encodings the gateway can send (OTLP/HTTP); gRPC needs a collector's 4317 and is not built in. */
export type OtlpProtocol = 'http/protobuf' | 'http/json';

/** What the standard `OTEL_*` variables ask for; undefined when nothing is (R12.1: off when unset). */
export interface OtelSetup {
  traces: { protocol: OtlpProtocol } | undefined;
  metrics: { protocol: OtlpProtocol; intervalMs: number; timeoutMs: number } | undefined;
  /** `OTEL_SEMCONV_STABILITY_OPT_IN`, handed to core's telemetry. */
  semconvStabilityOptIn: string | undefined;
}

type Env = Record<string, string | undefined>;

const set = (value: string | undefined): string | undefined => (value === undefined || value.trim() === '' ? undefined : value.trim());

/**
 * Reads the OpenTelemetry SDK's environment variables as the specification
 * names them. A signal is exported when its exporter is `otlp`, or when it is
 * unset and an OTLP endpoint (the shared one or the signal's own) is: an
 * operator who sets nothing gets nothing, and `OTEL_SDK_DISABLED=true` or an
 * exporter of `none` turns a signal off. Endpoint, headers, timeout and
 * compression are read by the OTLP exporters themselves, the batch span
 * processor's `OTEL_BSP_*` and the sampler's `OTEL_TRACES_SAMPLER*` by the
 * tracer provider. A value the gateway cannot honour is a start-up error,
 * never silently something else.
 */
export function readOtelEnv(env: Env): OtelSetup | undefined {
  if (set(env.OTEL_SDK_DISABLED)?.toLowerCase() === 'true') return undefined;
  const traces = signalWanted(env, 'TRACES') ? { protocol: readProtocol(env, 'TRACES') } : undefined;
  const metrics = signalWanted(env, 'METRICS')
    ? {
        protocol: readProtocol(env, 'METRICS'),
        intervalMs: readMilliseconds(env, 'OTEL_METRIC_EXPORT_INTERVAL', 60_000),
        timeoutMs: readMilliseconds(env, 'OTEL_METRIC_EXPORT_TIMEOUT', 30_000),
      }
    : undefined;
  if (traces === undefined && metrics === undefined) return undefined;
  return { traces, metrics, semconvStabilityOptIn: set(env.OTEL_SEMCONV_STABILITY_OPT_IN) };
}

function signalWanted(env: Env, signal: 'TRACES' | 'METRICS'): boolean {
  const exporters = set(env[`OTEL_${signal}_EXPORTER`]);
  if (exporters === undefined) return set(env.OTEL_EXPORTER_OTLP_ENDPOINT) !== undefined || set(env[`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`]) !== undefined;
  const names = exporters.split(',').map((name) => name.trim().toLowerCase());
  for (const name of names) {
    if (name !== 'otlp' && name !== 'none') rejectConfig(`OTEL_${signal}_EXPORTER=${name} is not supported by turnguard serve; use otlp (to a collector) or none.`, `OTEL_${signal}_EXPORTER`);
  }
  return names.includes('otlp');
}

function readProtocol(env: Env, signal: 'TRACES' | 'METRICS'): OtlpProtocol {
  const protocol = set(env[`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`]) ?? set(env.OTEL_EXPORTER_OTLP_PROTOCOL) ?? 'http/protobuf';
  if (protocol === 'http/protobuf' || protocol === 'http/json') return protocol;
  return rejectConfig(
    `OTLP protocol ${protocol} is not supported by turnguard serve; use http/protobuf (a collector's port 4318) or http/json.`,
    `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`,
  );
}

function readMilliseconds(env: Env, name: string, fallback: number): number {
  const value = set(env[name]);
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed <= 0) rejectConfig(`${name} must be a whole number of milliseconds above 0, not ${JSON.stringify(value)}.`, name);
  return parsed;
}
