import type { ProbeScenario } from '../probe-types.js';
import { FAILOVER_SCENARIOS } from './failover-scenarios.js';
import { LOOP_SCENARIOS } from './loop-scenarios.js';
import { TURN_SCENARIOS } from './turn-scenarios.js';

/** Every scenario, in the order `--all` runs them. */
export const PROBE_SCENARIOS: readonly ProbeScenario[] = [...TURN_SCENARIOS, ...LOOP_SCENARIOS, ...FAILOVER_SCENARIOS];

export const DEFAULT_SCENARIO_NAME = 'long-think-cut';

export function findScenario(name: string): ProbeScenario | undefined {
  return PROBE_SCENARIOS.find((scenario) => scenario.name === name);
}
