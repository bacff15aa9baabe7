import type { ProbeRunResult, ProbeScenario } from '../probe-types.js';
import { runFailoverScenario } from './run-failover-scenario.js';
import { runLoopScenario } from './run-loop-scenario.js';
import type { ScenarioRunContext } from './scenario-run-context.js';
import { runTurnScenario } from './run-turn-scenario.js';

export function runScenario(scenario: ProbeScenario, context: ScenarioRunContext): Promise<ProbeRunResult> {
  switch (scenario.engine) {
    case 'turn':
      return runTurnScenario(scenario, context);
    case 'loop':
      return runLoopScenario(scenario, context);
    case 'failover':
      return runFailoverScenario(scenario, context);
    default: {
      const _exhaustive: never = scenario;
      throw new Error(`unknown scenario engine ${String(_exhaustive)}`);
    }
  }
}
