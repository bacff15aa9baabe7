import type { Protocol, RetryOptions, UpstreamTarget } from '@turnguard/core';
import type { StatsStore } from '@turnguard/stats';
import type { ProbeContent, ProbeOutcome, ProbeRunResult, ProbeScenario, ProbeTiming, ScenarioExpectation } from '../probe-types.js';
import { ProgressRenderer, type ProgressOutput } from '../progress/progress-renderer.js';
import { ProgressTracker } from '../progress/progress-tracker.js';
import type { TraceRecorder } from '../report/trace-recorder.js';
import { ProbeStatsSink } from './probe-stats-sink.js';

/** What one scenario run on one protocol needs. */
export interface ScenarioRunContext {
  protocol: Protocol;
  target: UpstreamTarget;
  /** The mock's target for any protocol (a fail-over scenario's fallback of another family); absent against a real upstream. */
  targetFor?: (protocol: Protocol) => UpstreamTarget;
  model: string;
  content: ProbeContent;
  /** Shortened waits against the mock; `undefined` against a real upstream (the R1 defaults apply). */
  timing: ProbeTiming | undefined;
  /** Where stats go; `undefined` records nothing to disk. */
  store: StatsStore | undefined;
  /** Content-free warnings (a stats record the store refused). */
  warn: (text: string) => void;
  output: ProgressOutput;
  trace: TraceRecorder;
  now: () => number;
  /** Judge against the scenario's full expectation (mock) or only the outcome (a real upstream). */
  strictExpectation: boolean;
}

/** The progress, stats and trace plumbing shared by the turn and loop runners. */
export function startScenarioRun(scenario: ProbeScenario, context: ScenarioRunContext) {
  const label = `${scenario.name}/${context.protocol}`;
  const renderer = new ProgressRenderer(context.output, label, context.now);
  const tracker = new ProgressTracker(
    (notice) => renderer.notice(notice),
    (phase, segment) => context.trace.record(scenario.name, context.protocol, 'phase', { phase, segment }),
  );
  const sink = new ProbeStatsSink(context.store, context.warn);
  renderer.attach(tracker);
  context.trace.record(scenario.name, context.protocol, 'run-start', { engine: scenario.engine, model: context.model });
  return { label, renderer, tracker, sink, startedAt: context.now() };
}

/** Shortened R1 waits for the mock: a small backoff base; server-directed waits come from the mock's headers. */
export function buildRetryOptions(timing: ProbeTiming | undefined): RetryOptions {
  if (timing === undefined) return {};
  return { initialDelayMs: timing.backoffInitialMs, maxDelayMs: timing.backoffInitialMs * 8 };
}

interface ObservedOutcome {
  outcome: ProbeOutcome;
  errorCode: string | undefined;
  physicalRequests: number;
  recovered: boolean;
  retries: number;
  toolErrors: number;
  transitions: string[];
}

/** Lists every way the run differs from what the scenario expects; empty means pass. */
export function compareWithExpectation(expected: ScenarioExpectation, expectedTransitions: readonly string[] | undefined, actual: ObservedOutcome, strict: boolean): string[] {
  const mismatches: string[] = [];
  const check = (what: string, want: unknown, got: unknown): void => {
    if (want !== got) mismatches.push(`${what}: expected ${String(want)}, got ${String(got)}`);
  };
  check('outcome', expected.outcome, actual.outcome);
  if (!strict) return mismatches;
  if (expected.errorCode !== undefined) check('error code', expected.errorCode, actual.errorCode);
  check('physical requests', expected.physicalRequests, actual.physicalRequests);
  check('recovered', expected.recovered, actual.recovered);
  check('retries', expected.retries, actual.retries);
  if (expected.toolErrors !== undefined) check('tool errors', expected.toolErrors, actual.toolErrors);
  if (expectedTransitions !== undefined) check('transitions', expectedTransitions.join(','), actual.transitions.join(','));
  return mismatches;
}

/** Ends a run: final line, trace entries for segments and samples, and the result row. */
export async function finishScenarioRun(
  scenario: ProbeScenario,
  context: ScenarioRunContext,
  run: ReturnType<typeof startScenarioRun>,
  observed: Omit<ObservedOutcome, 'physicalRequests' | 'retries' | 'toolErrors' | 'transitions'> & { terminalReason: string | undefined },
): Promise<ProbeRunResult> {
  const { tracker, sink, renderer } = run;
  tracker.finish(observed.outcome === 'ok');
  await sink.settle();
  const actual: ObservedOutcome = {
    ...observed,
    physicalRequests: sink.samples.length,
    retries: tracker.retries,
    toolErrors: tracker.toolErrors,
    transitions: [...tracker.transitions],
  };
  const expectedTransitions = scenario.engine === 'loop' ? scenario.expectedTransitions : undefined;
  const mismatches = compareWithExpectation(scenario.expected, expectedTransitions, actual, context.strictExpectation);
  const durationMs = context.now() - run.startedAt;
  const result: ProbeRunResult = {
    scenario: scenario.name,
    protocol: context.protocol,
    engine: scenario.engine,
    expected: context.strictExpectation ? scenario.expected : { outcome: scenario.expected.outcome },
    outcome: actual.outcome,
    errorCode: actual.errorCode,
    physicalRequests: actual.physicalRequests,
    recovered: actual.recovered,
    retries: actual.retries,
    retryWaitMs: tracker.retryWaitMs,
    durationMs,
    terminalReason: observed.terminalReason,
    transitions: actual.transitions,
    toolErrors: actual.toolErrors,
    mismatches,
    passed: mismatches.length === 0,
    segments: tracker.segments.map((segment) => ({ ...segment })),
    samples: [...sink.samples],
  };
  for (const segment of result.segments) context.trace.record(scenario.name, context.protocol, 'segment', { ...segment });
  for (const sample of result.samples) context.trace.recordSample(scenario.name, context.protocol, sample);
  context.trace.record(scenario.name, context.protocol, 'run-end', {
    outcome: result.outcome,
    errorCode: result.errorCode,
    physicalRequests: result.physicalRequests,
    recovered: result.recovered,
    retries: result.retries,
    durationMs,
    passed: result.passed,
  });
  const verdict = result.passed ? 'PASS' : `FAIL (${mismatches.join('; ')})`;
  const error = result.errorCode === undefined ? '' : ` ${result.errorCode}`;
  renderer.end(`${verdict} ${run.label}: ${result.outcome}${error}, ${result.physicalRequests} requests, ${(durationMs / 1000).toFixed(2)}s`);
  return result;
}
