import { CircuitBreakers, INTERACTIVE_RETRY_BUDGET, runTurn, type FailoverTarget, type RetryBudget, type TurnResult } from '@turnguard/core';
import type { FailoverScenario, ProbeRunResult } from '../probe-types.js';
import { buildProbePrompt, buildProbeSettings, getProbeAdapter } from './probe-adapters.js';
import { finishScenarioRun, startScenarioRun, type ScenarioRunContext } from './scenario-run-context.js';

/**
 * The gateway's interactive budget (R11.3) with the mock's shortened waits:
 * the same rules — 3 consecutive failures fail over, at most 5 tries — in
 * tens of milliseconds instead of seconds.
 */
function budgetFor(context: ScenarioRunContext): RetryBudget {
  if (context.timing === undefined) return INTERACTIVE_RETRY_BUDGET;
  return { ...INTERACTIVE_RETRY_BUDGET, initialDelayMs: context.timing.backoffInitialMs, maxDelayMs: context.timing.backoffInitialMs * 8, burst: undefined };
}

/**
 * One or more logical turns through runTurn's fail-over chain (R11), watched
 * live like any turn: each fail-over, circuit change and continuation is a
 * line of its own, each physical request a segment, and every request a
 * stats sample with its model and the model it stood in for (R11.7).
 */
export async function runFailoverScenario(scenario: FailoverScenario, context: ScenarioRunContext): Promise<ProbeRunResult> {
  const run = startScenarioRun(scenario, context);
  const adapter = getProbeAdapter(context.protocol);
  const targetFor = context.targetFor ?? (() => context.target);
  const chain = scenario.chain({ protocol: context.protocol, targetFor });
  let offset = 0;
  const now = (): number => context.now() + offset;
  const circuits =
    chain.circuit === undefined
      ? undefined
      : new CircuitBreakers({
          ...chain.circuit,
          now,
          onStateChange: (change) => {
            run.renderer.notice(`circuit ${change.key.upstream}/${change.key.model}: ${change.from} → ${change.to}${change.coolDownMs === undefined ? '' : ` (probe after ${change.coolDownMs / 1000} s)`}`);
            context.trace.record(scenario.name, context.protocol, 'circuit', { upstream: change.key.upstream, model: change.key.model, from: change.from, to: change.to });
          },
        });
  const fallbacks: FailoverTarget[] = chain.fallbacks.map((fallback) => ({
    adapter: getProbeAdapter(fallback.protocol),
    target: targetFor(fallback.protocol),
    model: fallback.model,
    upstream: fallback.upstream,
    ...(fallback.prefill === undefined ? {} : { prefill: fallback.prefill }),
  }));
  let last: TurnResult | undefined;
  for (let index = 0; index < scenario.turns; index += 1) {
    const advance = scenario.advanceBefore?.(index) ?? 0;
    if (index > 0) run.tracker.nextTurn();
    if (advance > 0) {
      offset += advance;
      run.renderer.notice(`${advance / 1000} s later (the probe moves its clock): turn ${index + 1}`);
    } else if (index > 0) run.renderer.notice(`turn ${index + 1}`);
    const turn = runTurn({
      adapter,
      request: adapter.buildRequest(buildProbePrompt(context.content), buildProbeSettings(context.model, scenario.settings)),
      target: context.target,
      upstream: 'mock',
      fallbacks,
      retryBudget: budgetFor(context),
      ...(chain.prefill === undefined ? {} : { prefill: chain.prefill }),
      ...(chain.timeLimits === undefined ? {} : { timeLimits: chain.timeLimits }),
      ...(chain.continuation === undefined ? {} : { continuation: chain.continuation }),
      ...(circuits === undefined ? {} : { circuitBreakers: circuits }),
      stats: run.sink,
      now,
    });
    for await (const event of turn) {
      run.tracker.observe(event);
      context.trace.recordEvent(scenario.name, context.protocol, event);
      run.renderer.update();
    }
    last = await turn.result;
    if (last.chain !== undefined) {
      context.trace.record(scenario.name, context.protocol, 'chain', { turn: index + 1, answeredBy: last.model, chain: last.chain.map((entry) => `${entry.upstream}/${entry.model}:${entry.outcome}`) });
    }
    if (last.outcome !== 'ok') break;
  }
  return finishScenarioRun(scenario, context, run, {
    outcome: last?.outcome ?? 'error',
    errorCode: last?.error?.code,
    recovered: false,
    terminalReason: undefined,
  });
}
