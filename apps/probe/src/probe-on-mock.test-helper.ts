import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Protocol } from '@turnguard/core';
import { startLoopbackUpstream, type LoopbackUpstream } from '@turnguard/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { runProbe, type ProbeReport } from './run-probe.js';
import { findScenario } from './scenarios/scenario-catalog.js';
import type { ProbeContent } from './index.js';

// Tiny real waits: the retry layer's own timing is unit-tested with fake timers in core.
export const PROBE_TIMING = { serverWaitMs: 1, backoffInitialMs: 1, chunkDelayMs: 0 };

export interface ProbeOnMockRun {
  report: ProbeReport;
  /** What the probe printed. */
  printed: string;
  /** The result file, the trace file and the stats file it wrote (R9.2). */
  files: { result: string; trace: string; stats: string };
}

/** One scenario on one protocol against the loopback mock, with the files it wrote into `directory`. */
export async function probeOnMock(name: string, protocol: Protocol, options: { directory: string; upstream: LoopbackUpstream; content: ProbeContent }): Promise<ProbeOnMockRun> {
  const { directory } = options;
  let printed = '';
  const report = await runProbe({
    scenarios: [findScenario(name)!],
    protocols: [protocol],
    target: { kind: 'mock' },
    outDir: join(directory, 'out'),
    statsFile: join(directory, 'stats.json'),
    output: { write: (text) => (printed += text), isTTY: false },
    content: options.content,
    timing: PROBE_TIMING,
    upstream: options.upstream,
  });
  const names = await readdir(join(directory, 'out'));
  const resultName = names.find((file) => file.endsWith('-result.json'));
  const traceName = names.find((file) => file.endsWith('-trace.jsonl'));
  // The two files of one run share their stem.
  expect(resultName?.replace('-result.json', '')).toBe(traceName?.replace('-trace.jsonl', ''));
  const files = {
    result: await readFile(join(directory, 'out', resultName!), 'utf8'),
    trace: await readFile(join(directory, 'out', traceName!), 'utf8'),
    stats: await readFile(join(directory, 'stats.json'), 'utf8'),
  };
  return { report, printed, files };
}

/** One loopback mock for the file and a fresh directory per test, removed after it. */
export function useProbeFixtures(prefix: string): { readonly upstream: LoopbackUpstream; readonly directory: string } {
  let upstream: LoopbackUpstream | undefined;
  let directory: string | undefined;
  beforeAll(async () => {
    upstream = await startLoopbackUpstream();
  });
  afterAll(() => upstream?.close());
  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), prefix));
  });
  afterEach(() => rm(directory!, { recursive: true, force: true }));
  return {
    get upstream() {
      return upstream!;
    },
    get directory() {
      return directory!;
    },
  };
}
