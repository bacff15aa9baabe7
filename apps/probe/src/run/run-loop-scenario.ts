import { runAgentLoop } from '@turnguard/core';
import type { LoopScenario, ProbeRunResult } from '../probe-types.js';
import { buildProbePrompt, buildProbeSettings, getProbeAdapter } from './probe-adapters.js';
import { buildRetryOptions, finishScenarioRun, startScenarioRun, type ScenarioRunContext } from './scenario-run-context.js';

/** Several model calls through `runAgentLoop` (R3): continuation, compaction, tool errors. */
export async function runLoopScenario(scenario: LoopScenario, context: ScenarioRunContext): Promise<ProbeRunResult> {
  const run = startScenarioRun(scenario, context);
  const loop = runAgentLoop({
    adapter: getProbeAdapter(context.protocol),
    prompt: buildProbePrompt(context.content),
    // No host cap: the adapter's default is in use, which R3.3 may escalate once.
    settings: buildProbeSettings(context.model, { maxOutputTokens: undefined, ...scenario.settings }),
    toolHandlers: scenario.toolHandlers,
    hooks: scenario.compact === undefined ? {} : { compact: scenario.compact },
    escalatedMaxOutputTokens: scenario.escalatedMaxOutputTokens,
    target: context.target,
    retry: buildRetryOptions(context.timing),
    stats: run.sink,
  });
  for await (const event of loop) {
    run.tracker.observe(event);
    context.trace.recordEvent(scenario.name, context.protocol, event);
    run.renderer.update();
  }
  const { terminal } = await loop.result;
  const completed = terminal.reason === 'completed';
  return finishScenarioRun(scenario, context, run, {
    outcome: completed ? 'ok' : 'error',
    errorCode: completed ? undefined : (terminal.error?.code ?? terminal.reason.toUpperCase()),
    recovered: run.sink.samples.some((sample) => sample.recovered),
    terminalReason: terminal.reason,
  });
}
