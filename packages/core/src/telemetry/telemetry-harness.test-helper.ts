import { AggregationTemporality, MeterProvider, MetricReader, type DataPoint, type Histogram } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

/** Collects metric points on demand, cumulatively: one collection reads every point a turn recorded. */
class CollectingReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** An in-memory tracer and meter: the finished spans and the metric points by name. */
export function telemetryHarness() {
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  const reader = new CollectingReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    tracer: tracerProvider.getTracer('test'),
    meter: meterProvider.getMeter('test'),
    spans,
    async metrics(): Promise<Map<string, DataPoint<number | Histogram>[]>> {
      const { resourceMetrics } = await reader.collect();
      const byName = new Map<string, DataPoint<number | Histogram>[]>();
      for (const scope of resourceMetrics.scopeMetrics) {
        for (const metric of scope.metrics) byName.set(metric.descriptor.name, metric.dataPoints as DataPoint<number | Histogram>[]);
      }
      return byName;
    },
  };
}

export type Harness = ReturnType<typeof telemetryHarness>;
