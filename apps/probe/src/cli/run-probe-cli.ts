import { resolve } from 'node:path';
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
      statsFile: config.recordStats ? resolve(io.cwd, resolveStatsFilePath(config.statsFile, io.env)) : undefined,
      output: io.stdout,
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
