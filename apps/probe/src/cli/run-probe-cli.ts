import { dirname, join, resolve } from 'node:path';
import { TurnError } from '@turnguard/core';
import { resolveStatsFilePath } from '@turnguard/stats';
import type { ProbeContent, ProbeTiming } from '../probe-types.js';
import type { ProgressOutput } from '../progress/progress-renderer.js';
import { runProbe } from '../run-probe.js';
import { parseProbeArgs } from './parse-probe-args.js';
import { formatProbeUsage } from './probe-usage.js';

export interface ProbeCliIo {
  env: Record<string, string | undefined>;
  cwd: string;
  stdout: ProgressOutput;
  writeErr(text: string): void;
  /** Test seams: planted content and tiny waits. */
  content?: ProbeContent;
  timing?: ProbeTiming;
}

/**
 * Where stats go: the flag, else TURNGUARD_STATS_FILE, else the user's
 * stats.json, except that runs against the embedded mock go to
 * mock-stats.json beside it, so injected failures never mix into a user's
 * real numbers (R6, R9.1).
 */
function chooseStatsFile(flag: string | undefined, mock: boolean, env: Record<string, string | undefined>): string {
  if (flag !== undefined || env.TURNGUARD_STATS_FILE !== undefined || !mock) return resolveStatsFilePath(flag, env);
  return join(dirname(resolveStatsFilePath(undefined, env)), 'mock-stats.json');
}

/** The CLI without process globals, so it is testable in-process. Resolves to the exit code. */
export async function runProbeCli(argv: readonly string[], io: ProbeCliIo): Promise<number> {
  let config;
  try {
    config = parseProbeArgs(argv, io.env);
  } catch (error) {
    if (!TurnError.isInstance(error)) throw error;
    io.writeErr(`turnguard-probe: ${error.message}\nRun turnguard-probe --help for the flags and scenarios.\n`);
    return 2;
  }
  if (config.help) {
    io.stdout.write(formatProbeUsage());
    return 0;
  }
  try {
    const report = await runProbe({
      scenarios: config.scenarios,
      protocols: config.protocols,
      target: config.target,
      outDir: resolve(io.cwd, config.outDir),
      statsFile: config.recordStats ? resolve(io.cwd, chooseStatsFile(config.statsFile, config.target.kind === 'mock', io.env)) : undefined,
      output: io.stdout,
      cwd: io.cwd,
      writeWarning: (text) => io.writeErr(`turnguard-probe: ${text.endsWith('\n') ? text : `${text}\n`}`),
      content: io.content,
      timing: io.timing,
    });
    return report.passed ? 0 : 1;
  } catch (error) {
    // Codes and messages only: a TurnError's message is turnguard's own wording, never content (R4.10).
    const code = TurnError.isInstance(error) ? `${error.code}: ` : '';
    io.writeErr(`turnguard-probe: the probe could not run: ${code}${(error as Error).message}\n`);
    return 1;
  }
}
