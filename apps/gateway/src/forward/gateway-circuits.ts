import { CircuitBreakers, type CircuitState } from '@turnguard/core';
import type { GatewayConfig } from '../config/gateway-config.js';
import type { GatewayLogger } from '../logging/create-gateway-logger.js';
import type { CircuitState as MetricCircuitState, GatewayMetrics } from '../metrics/gateway-metrics.js';
import type { RoutingSettings } from '../routing/routing-schema.js';

const METRIC_STATE: Record<CircuitState, MetricCircuitState> = { closed: 'closed', open: 'open', 'half-open': 'half_open' };

/**
 * The process's circuits (R11.5), with every state change in `/metrics`
 * (`turnguard_circuit_state`) and one log line: upstream and model names,
 * states and counts, never content. Undefined when the config turns them off.
 */
export function createCircuitBreakers(config: GatewayConfig, metrics: GatewayMetrics, logger: GatewayLogger, now: (() => number) | undefined): CircuitBreakers | undefined {
  if (config.circuitBreaker === false) return undefined;
  return new CircuitBreakers({
    ...config.circuitBreaker,
    ...(now === undefined ? {} : { now }),
    onStateChange: (change) => {
      metrics.setCircuitState(change.key.upstream, change.key.model, METRIC_STATE[change.to]);
      const fields = { upstream: change.key.upstream, model: change.key.model, from: change.from, to: change.to, consecutiveFailures: change.consecutiveFailures, coolDownMs: change.coolDownMs };
      if (change.to === 'open') logger.warn(fields, 'circuit opened: requests go to the fallback');
      else logger.info(fields, change.to === 'closed' ? 'circuit closed' : 'circuit half-open: one probe goes through');
    },
  });
}

/** The models the config names keep a metric label of their own (decision 0380's bound counts the rest). */
export function declareConfiguredModels(metrics: GatewayMetrics, routing: RoutingSettings): void {
  const names = new Set<string>();
  for (const [name, route] of Object.entries(routing.models)) names.add(name).add(route.model);
  for (const [model, chain] of Object.entries(routing.fallbacks)) {
    if (model !== '*') names.add(model);
    for (const name of chain) names.add(name);
  }
  if (names.size > 0) metrics.declareModels(names);
}
