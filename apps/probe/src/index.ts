export { runProbeCli, type ProbeCliIo } from './cli/run-probe-cli.js';
export { parseProbeArgs, DEFAULT_OUT_DIR, type ProbeConfig, type ProbeTarget } from './cli/parse-probe-args.js';
export { formatProbeUsage } from './cli/probe-usage.js';
export { runProbe, type RunProbeOptions, type ProbeReport } from './run-probe.js';
export { PROBE_SCENARIOS, DEFAULT_SCENARIO_NAME, findScenario } from './scenarios/scenario-catalog.js';
// The protocols a probe runs on, so a program needs no import of core for `protocols`.
export { PROTOCOLS } from '@turnguard/core';
export { formatSummaryTable } from './report/format-summary-table.js';
export type { TraceEntry } from './report/trace-recorder.js';
export type { ProbeRunInfo, ResultFiles } from './report/write-result-files.js';
export {
  MOCK_TIMING,
  DEFAULT_CONTENT,
  type ProbeTiming,
  type ProbeContent,
  type ProbeOutcome,
  type ScenarioExpectation,
  type ProbeScenario,
  type TurnScenario,
  type LoopScenario,
  type ProbeRunResult,
  type SegmentProgress,
} from './probe-types.js';
