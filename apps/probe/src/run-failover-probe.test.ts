import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROTOCOLS, type Protocol } from '@turnguard/core';
import { startLoopbackUpstream, type LoopbackUpstream } from '@turnguard/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runProbe } from './run-probe.js';
import { findScenario } from './scenarios/scenario-catalog.js';

const MARKER = 'FAILOVER-PROBE-MARKER-c41d';
const CONTENT = { prompt: `Is 2^31 - 1 prime? ${MARKER}-prompt`, reasoning: `Small primes first ${MARKER}-reasoning. `, answer: `It is prime ${MARKER}-answer, a Mersenne prime.` };
const TIMING = { serverWaitMs: 1, backoffInitialMs: 1, chunkDelayMs: 0 };

/** Written here, not read from the scenarios: what each fail-over scenario must show (R11, R9.1). */
const EXPECTED: Record<string, { requests: number; retries: number; events: string[]; models: (protocol: Protocol) => string[] }> = {
  'fail-over': { requests: 4, retries: 2, events: ['fallback'], models: () => ['mock', 'mock', 'mock', 'fallback'] },
  'circuit-open-close': { requests: 6, retries: 2, events: ['fallback', 'circuit'], models: () => ['mock', 'mock', 'mock', 'fallback', 'fallback', 'mock'] },
  'stall-caught': { requests: 2, retries: 0, events: ['fallback'], models: () => ['mock', 'fallback'] },
  continuation: { requests: 2, retries: 0, events: ['continuation-start'], models: (protocol) => ['mock', protocol === 'responses' ? 'fallback' : 'mock'] },
};

let upstream: LoopbackUpstream;
let directory: string;
beforeAll(async () => {
  upstream = await startLoopbackUpstream();
});
afterAll(() => upstream.close());
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'turnguard-probe-failover-'));
});
afterEach(() => rm(directory, { recursive: true, force: true }));

describe.each(Object.keys(EXPECTED))('fail-over scenario %s (R11, R9.1)', (name) => {
  it.each(PROTOCOLS)('on %s: the physical requests it took, each with its model; no content in any file (R9.2, R4.10)', async (protocol: Protocol) => {
    const expected = EXPECTED[name]!;
    let printed = '';
    const report = await runProbe({
      scenarios: [findScenario(name)!],
      protocols: [protocol],
      target: { kind: 'mock' },
      outDir: join(directory, 'out'),
      statsFile: join(directory, 'stats.json'),
      output: { write: (text) => (printed += text), isTTY: false },
      content: CONTENT,
      timing: TIMING,
      upstream,
    });
    const [result] = report.results;
    expect(result).toMatchObject({ scenario: name, outcome: 'ok', physicalRequests: expected.requests, retries: expected.retries, mismatches: [], passed: true });
    expect(result!.samples.map((sample) => (sample.model === 'turnguard-probe-fallback' ? 'fallback' : 'mock'))).toEqual(expected.models(protocol));
    for (const sample of result!.samples) if (sample.model === 'turnguard-probe-fallback') expect(sample.fallbackFrom).toBe('turnguard-probe-mock');
    const names = await readdir(join(directory, 'out'));
    const trace = await readFile(join(directory, 'out', names.find((file) => file.endsWith('-trace.jsonl'))!), 'utf8');
    const resultText = await readFile(join(directory, 'out', names.find((file) => file.endsWith('-result.json'))!), 'utf8');
    const events = trace.trimEnd().split('\n').map((line) => (JSON.parse(line) as { event: string }).event);
    for (const event of expected.events) expect(events).toContain(event);
    for (const text of [trace, resultText, printed, await readFile(join(directory, 'stats.json'), 'utf8')]) expect(text).not.toContain(MARKER);
  });
});
