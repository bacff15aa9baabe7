import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { preloadTurnTelemetry, type TurnTelemetryOptions } from '@turnguard/core';
import packageJson from '../../package.json' with { type: 'json' };
import type { OtelSetup, OtlpProtocol } from './read-otel-env.js';

/** The gateway's OpenTelemetry: what each turn is handed, and a flush on close. */
export interface GatewayTelemetry {
  /** The turn's tracer, meter and parent (the client's `traceparent`, when it sent one). */
  forRequest(request: IncomingMessage): TurnTelemetryOptions;
  /** Exports what is pending and stops the exporters. */
  shutdown(): Promise<void>;
}

const SCOPE = '@turnguard/gateway';

/**
 * The official SDK, configured from the environment (read-otel-env.ts):
 * a tracer provider with a batch span processor and a meter provider with a
 * periodic reader, each with the OTLP/HTTP exporter of the asked encoding.
 * Providers of this gateway's own, not the process's globals: nothing else
 * in the host process is traced through them, no context manager is
 * installed (the parent is handed to each turn), and two gateways in one
 * process never fight over a registration. Loaded only when asked for, so a
 * gateway with OTel off loads none of it.
 */
export async function startGatewayTelemetry(setup: OtelSetup): Promise<GatewayTelemetry> {
  const [api, core, resources] = await Promise.all([import('@opentelemetry/api'), import('@opentelemetry/core'), import('@opentelemetry/resources')]);
  // Core uses the gateway's own API module: a bundled gateway's core could not import it from where it runs.
  await preloadTurnTelemetry(api);
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': 'turnguard-gateway', 'service.version': packageJson.version, 'service.instance.id': randomUUID() }))
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over the defaults above.
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const tracing = setup.traces === undefined ? undefined : await startTracing(resource, setup.traces.protocol);
  const metering = setup.metrics === undefined ? undefined : await startMetering(resource, setup.metrics);
  const propagator = new core.W3CTraceContextPropagator();
  const tracer = tracing?.getTracer(SCOPE, packageJson.version);
  const meter = metering?.getMeter(SCOPE, packageJson.version);
  return {
    forRequest(request) {
      return {
        tracer,
        meter,
        parentContext: tracer === undefined ? undefined : propagator.extract(api.ROOT_CONTEXT, request.headers, api.defaultTextMapGetter),
        semconvStabilityOptIn: setup.semconvStabilityOptIn ?? '',
      };
    },
    async shutdown() {
      await Promise.all([tracing?.shutdown(), metering?.shutdown()]);
    },
  };
}

type Resource = ReturnType<typeof import('@opentelemetry/resources').resourceFromAttributes>;

async function startTracing(resource: Resource, protocol: OtlpProtocol) {
  const { BasicTracerProvider, BatchSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
  const { OTLPTraceExporter } =
    protocol === 'http/json' ? await import('@opentelemetry/exporter-trace-otlp-http') : await import('@opentelemetry/exporter-trace-otlp-proto');
  return new BasicTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
}

async function startMetering(resource: Resource, setup: { protocol: OtlpProtocol; intervalMs: number; timeoutMs: number }) {
  const { MeterProvider, PeriodicExportingMetricReader } = await import('@opentelemetry/sdk-metrics');
  const { OTLPMetricExporter } =
    setup.protocol === 'http/json' ? await import('@opentelemetry/exporter-metrics-otlp-http') : await import('@opentelemetry/exporter-metrics-otlp-proto');
  const reader = new PeriodicExportingMetricReader({
    exporter: new OTLPMetricExporter(),
    exportIntervalMillis: setup.intervalMs,
    exportTimeoutMillis: Math.min(setup.timeoutMs, setup.intervalMs),
  });
  return new MeterProvider({ resource, readers: [reader] });
}
