import { PROTOCOLS, type Protocol, type UpstreamTarget } from '@turnguard/core';
import { createStatsStore, type StatsStore } from '@turnguard/stats';
import { startLoopbackUpstream, type LoopbackUpstream, type ScenarioQueue } from '@turnguard/testkit/server';
import type { ProbeTarget } from './cli/parse-probe-args.js';
import { DEFAULT_CONTENT, MOCK_TIMING, type ProbeContent, type ProbeRunResult, type ProbeScenario, type ProbeTiming } from './probe-types.js';
import type { ProgressOutput } from './progress/progress-renderer.js';
import { describeDashboardCommand } from './report/dashboard-command.js';
import { formatSummaryTable } from './report/format-summary-table.js';
import { TraceRecorder } from './report/trace-recorder.js';
import { writeResultFiles, type ResultFiles } from './report/write-result-files.js';
import { buildMockTarget, MOCK_MODEL } from './run/probe-adapters.js';
import { runScenario } from './run/run-scenario.js';

export interface RunProbeOptions {
  scenarios: readonly ProbeScenario[];
  protocols: readonly Protocol[];
  target: ProbeTarget;
  /** Directory for the result and trace files. */
  outDir: string;
  /** Resolved path of stats.json, or `undefined` to record nothing. */
  statsFile: string | undefined;
  output: ProgressOutput;
  /** Warnings (stats write failures); content-free. */
  writeWarning?: (text: string) => void;
  /** What the probe asks and the mock answers; tests plant markers here. */
  content?: ProbeContent;
  /** The mock's shortened waits. */
  timing?: ProbeTiming;
  now?: () => number;
  /** A mock upstream to use instead of starting one (left open); tests inspect what it received. */
  upstream?: LoopbackUpstream;
  /** Where the printed commands are run from (paths inside it are shown relative); default `process.cwd()`. */
  cwd?: string;
}

export interface ProbeReport {
  results: ProbeRunResult[];
  files: ResultFiles;
  statsFile: string | undefined;
  passed: boolean;
}

function describeTarget(options: RunProbeOptions, timing: ProbeTiming): string {
  if (options.target.kind === 'real') return `${options.target.baseUrl} (${options.target.model}, key from $${options.target.apiKeyEnv})`;
  return `the embedded mock upstream — waits shortened: server-directed ${timing.serverWaitMs} ms, backoff from ${timing.backoffInitialMs} ms (real defaults: as the server says, backoff 500 ms … 32 s)`;
}

function resolveTarget(target: ProbeTarget, upstream: LoopbackUpstream | undefined, protocol: Protocol): UpstreamTarget {
  if (target.kind === 'real') return { baseUrl: target.baseUrl, apiKey: target.apiKey };
  return buildMockTarget((upstream as LoopbackUpstream).baseUrl, protocol);
}

/**
 * The mock must have served exactly the queued replies: a leftover or an extra request means the run went wrong.
 * Every protocol's queue counts: a fail-over scenario's fallback may speak another one (R11.1).
 */
function checkMockUsage(upstream: LoopbackUpstream, result: ProbeRunResult): void {
  const left = PROTOCOLS.reduce((sum, protocol) => sum + (upstream[protocol] as ScenarioQueue<Protocol>).size, 0);
  if (left > 0) result.mismatches.push(`${left} queued mock replies were never requested`);
  const served = PROTOCOLS.reduce((sum, protocol) => sum + upstream.requestsFor(protocol).length, 0);
  if (served !== result.physicalRequests) result.mismatches.push(`the mock served ${served} requests but ${result.physicalRequests} were recorded`);
  result.passed = result.mismatches.length === 0;
}

/**
 * Runs the scenarios on each protocol, one after another, with live progress;
 * then prints the summary table, writes the result and trace files, and says
 * where the stats went and how to open the dashboard (R9).
 */
export async function runProbe(options: RunProbeOptions): Promise<ProbeReport> {
  const now = options.now ?? Date.now;
  const timing = options.timing ?? MOCK_TIMING;
  const content = options.content ?? DEFAULT_CONTENT;
  const startedAt = new Date(now());
  const trace = new TraceRecorder(now);
  const write = (text: string): void => options.output.write(text);
  const warn = options.writeWarning ?? ((text: string) => write(`turnguard-probe: ${text}\n`));
  const store: StatsStore | undefined = options.statsFile === undefined ? undefined : createStatsStore({ path: options.statsFile, onWarning: warn });
  const ownsUpstream = options.target.kind === 'mock' && options.upstream === undefined;
  const upstream = options.target.kind !== 'mock' ? undefined : (options.upstream ?? (await startLoopbackUpstream()));
  const results: ProbeRunResult[] = [];

  write(`turnguard-probe: ${options.scenarios.length} scenario(s) × ${options.protocols.length} protocol(s) against ${describeTarget(options, timing)}\n`);
  write('progress: seg<n> r<reasoning chars>/t<text chars>[/a<tool-argument chars>] per physical segment\n\n');
  try {
    for (const scenario of options.scenarios) {
      for (const protocol of options.protocols) {
        upstream?.reset();
        if (upstream !== undefined) scenario.queueReplies({ upstream, protocol, timing, content });
        const result = await runScenario(scenario, {
          protocol,
          target: resolveTarget(options.target, upstream, protocol),
          ...(upstream === undefined ? {} : { targetFor: (other: Protocol) => resolveTarget(options.target, upstream, other) }),
          model: options.target.kind === 'real' ? options.target.model : MOCK_MODEL,
          content,
          timing: upstream === undefined ? undefined : timing,
          store,
          warn,
          output: options.output,
          trace,
          now,
          strictExpectation: upstream !== undefined,
        });
        if (upstream !== undefined) checkMockUsage(upstream, result);
        results.push(result);
      }
    }
  } finally {
    if (ownsUpstream) await upstream?.close();
    if (store !== undefined) {
      await store.close().catch((error: unknown) => warn(`stats were not fully written: ${(error as { code?: string }).code ?? 'ERROR'}`));
    }
  }

  const info = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date(now()).toISOString(),
    target:
      options.target.kind === 'mock'
        ? ({ kind: 'mock' } as const)
        : ({ kind: 'real', baseUrl: options.target.baseUrl, model: options.target.model, apiKeyEnv: options.target.apiKeyEnv } as const),
    shortenedTiming: upstream === undefined ? undefined : timing,
    statsFile: options.statsFile,
  };
  const files = await writeResultFiles(options.outDir, startedAt, info, results, trace.entries);
  write(`\n${formatSummaryTable(results)}\n`);
  write(`result: ${files.resultPath}\ntrace:  ${files.tracePath}\n`);
  if (options.statsFile !== undefined) {
    write(`stats:  ${options.statsFile}\n`);
    write(`dashboard: ${describeDashboardCommand(options.statsFile, options.cwd)}\n`);
  }
  return { results, files, statsFile: options.statsFile, passed: results.every((result) => result.passed) };
}
