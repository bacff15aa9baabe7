import type { GatewayMetrics } from '../metrics/gateway-metrics.js';

/** The sum of a metric's series whose labels include `labels` (0 when none has been counted yet). */
export async function metricValue(metrics: GatewayMetrics, name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = metrics.registry.getSingleMetric(name);
  if (metric === undefined) throw new Error(`no metric named ${name}`);
  const { values } = await metric.get();
  return values
    .filter((value) => Object.entries(labels).every(([label, expected]) => value.labels[label] === expected))
    .reduce((sum, value) => sum + value.value, 0);
}
