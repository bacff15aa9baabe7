import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ProbeRunResult, ProbeTiming } from '../probe-types.js';
import type { TraceEntry } from './trace-recorder.js';

/** The header of `result.json`: where the probe ran and how, never a credential or content. */
export interface ProbeRunInfo {
  startedAt: string;
  finishedAt: string;
  target: { kind: 'mock' } | { kind: 'real'; baseUrl: string; model: string; apiKeyEnv: string | undefined };
  /** Set when the mock's waits were shortened (the real R1 defaults are far longer). */
  shortenedTiming: ProbeTiming | undefined;
  statsFile: string | undefined;
}

export interface ResultFiles {
  resultPath: string;
  tracePath: string;
}

/** `2026-01-05T10-20-30-123Z`: sortable and safe in every file system. */
export function formatFileTimestamp(date: Date): string {
  return date.toISOString().replace(/[:.]/g, '-');
}

/**
 * Writes `<timestamp>-result.json` (the run and every result row with its
 * segments and stats samples) and `<timestamp>-trace.jsonl` (one timed event
 * per line). Both are built only from numbers, codes and ids (R9.2, R4.10).
 */
export async function writeResultFiles(directory: string, startedAt: Date, info: ProbeRunInfo, results: readonly ProbeRunResult[], trace: readonly TraceEntry[]): Promise<ResultFiles> {
  await mkdir(directory, { recursive: true });
  const stamp = formatFileTimestamp(startedAt);
  const resultPath = join(directory, `${stamp}-result.json`);
  const tracePath = join(directory, `${stamp}-trace.jsonl`);
  const passed = results.filter((result) => result.passed).length;
  const document = { tool: 'turnguard-probe', ...info, totals: { runs: results.length, passed, failed: results.length - passed }, results };
  await writeFile(resultPath, `${JSON.stringify(document, null, 2)}\n`, 'utf8');
  await writeFile(tracePath, trace.map((entry) => JSON.stringify(entry)).join('\n') + (trace.length > 0 ? '\n' : ''), 'utf8');
  return { resultPath, tracePath };
}
