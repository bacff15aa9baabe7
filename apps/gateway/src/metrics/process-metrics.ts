import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import packageJson from '../../package.json' with { type: 'json' };

let processRegistry: Registry | undefined;

/**
 * What belongs to the process, not to one gateway: prom-client's default
 * process metrics (CPU, memory, heap, event-loop lag, GC, handles) and
 * `turnguard_build_info` (R12.2). Made once per process and shared by every
 * gateway in it, so two gateways in one process never install two GC
 * observers or report two CPU figures for the same process.
 */
export function getProcessRegistry(): Registry {
  if (processRegistry !== undefined) return processRegistry;
  const registry = new Registry();
  // Event-loop delay sampled every 100 ms, not prom-client's 10: each sample wakes the process, and at
  // 10 ms an idle gateway spent 6.5 ms of CPU a second on it (0.6 ms at 100; decision 0380).
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 100 });
  const buildInfo = new Gauge({
    name: 'turnguard_build_info',
    help: 'Always 1; the labels say which turnguard gateway and Node.js version this process runs.',
    labelNames: ['version', 'node_version'] as const,
    registers: [registry],
  });
  buildInfo.set({ version: packageJson.version, node_version: process.version }, 1);
  processRegistry = registry;
  return registry;
}
