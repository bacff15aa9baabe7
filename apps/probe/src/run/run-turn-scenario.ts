import { runTurn } from '@turnguard/core';
import type { ProbeRunResult, TurnScenario } from '../probe-types.js';
import { buildProbePrompt, buildProbeSettings, getProbeAdapter } from './probe-adapters.js';
import { buildRetryOptions, finishScenarioRun, startScenarioRun, type ScenarioRunContext } from './scenario-run-context.js';

/** One logical turn through `runTurn` (R1 retries, R4 recovery), watched live. */
export async function runTurnScenario(scenario: TurnScenario, context: ScenarioRunContext): Promise<ProbeRunResult> {
  const run = startScenarioRun(scenario, context);
  const adapter = getProbeAdapter(context.protocol);
  const request = adapter.buildRequest(buildProbePrompt(context.content), buildProbeSettings(context.model, scenario.settings));
  const turn = runTurn({
    adapter,
    request,
    target: context.target,
    retry: buildRetryOptions(context.timing),
    stats: run.sink,
  });
  for await (const event of turn) {
    run.tracker.observe(event);
    context.trace.recordEvent(scenario.name, context.protocol, event);
    run.renderer.update();
  }
  const result = await turn.result;
  return finishScenarioRun(scenario, context, run, {
    outcome: result.outcome,
    errorCode: result.error?.code,
    recovered: result.recovery?.recovered ?? false,
    terminalReason: undefined,
  });
}
