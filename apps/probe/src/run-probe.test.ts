/**
 * R9.1, R9.2: every scenario on every protocol against the real loopback mock
 * (real sockets, real runTurn / runAgentLoop), asserting outcome, physical
 * requests, and that the result and trace files hold no content (R4.10).
 */
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Protocol } from '@turnguard/core';
import { startLoopbackUpstream, type LoopbackUpstream } from '@turnguard/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PROTOCOLS } from '@turnguard/core';
import { findScenario, runProbe, type ProbeContent } from './index.js';

const MARKER = 'PROBE-CONTENT-MARKER-7f3a';
const CONTENT: ProbeContent = {
  prompt: `Is 2^31 - 1 prime? ${MARKER}-prompt`,
  reasoning: `I check small primes first ${MARKER}-reasoning then larger ones. `,
  answer: `It is prime ${MARKER}-answer.`,
};
// Tiny real waits: the retry layer's own timing is unit-tested with fake timers in core.
const TIMING = { serverWaitMs: 1, backoffInitialMs: 1, chunkDelayMs: 0 };

/** Written here, not read from the scenarios, so a scenario that drifts fails the test. */
const EXPECTED: Record<string, { outcome: 'ok' | 'error'; errorCode?: string; requests: number; recovered: boolean; retries: number; transitions: string[]; toolErrors?: number }> = {
  'long-think-cut': { outcome: 'ok', requests: 2, recovered: true, retries: 0, transitions: [] },
  'rate-limit-storm': { outcome: 'ok', requests: 4, recovered: false, retries: 3, transitions: [] },
  'overload-5xx': { outcome: 'ok', requests: 4, recovered: false, retries: 3, transitions: [] },
  'socket-drop-before-output': { outcome: 'ok', requests: 2, recovered: false, retries: 1, transitions: [] },
  'socket-drop-after-output': { outcome: 'error', errorCode: 'STREAM_CUT', requests: 1, recovered: false, retries: 0, transitions: [] },
  'output-truncation': { outcome: 'ok', requests: 3, recovered: false, retries: 0, transitions: ['max_output_tokens_escalate', 'max_output_tokens_recovery'] },
  'prompt-too-long': { outcome: 'ok', requests: 2, recovered: false, retries: 0, transitions: ['reactive_compact_retry'] },
  'malformed-tool-args': { outcome: 'ok', requests: 2, recovered: false, retries: 0, transitions: ['next_turn'], toolErrors: 1 },
};

let upstream: LoopbackUpstream;
let directory: string;
beforeAll(async () => {
  upstream = await startLoopbackUpstream();
});
afterAll(() => upstream.close());
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'turnguard-probe-'));
});
afterEach(() => rm(directory, { recursive: true, force: true }));

async function readOutputFiles(): Promise<{ result: string; trace: string }> {
  const names = await readdir(join(directory, 'out'));
  const resultName = names.find((name) => name.endsWith('-result.json'));
  const traceName = names.find((name) => name.endsWith('-trace.jsonl'));
  expect(resultName?.replace('-result.json', '')).toBe(traceName?.replace('-trace.jsonl', ''));
  return {
    result: await readFile(join(directory, 'out', resultName as string), 'utf8'),
    trace: await readFile(join(directory, 'out', traceName as string), 'utf8'),
  };
}

describe.each(Object.keys(EXPECTED))('scenario %s (R9.1)', (name) => {
  it.each(PROTOCOLS)('on %s: expected outcome and request count; result/trace files hold no content (R9.2, R4.10)', async (protocol: Protocol) => {
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
    expect(result).toMatchObject({
      scenario: name,
      protocol,
      outcome: expected.outcome,
      errorCode: expected.errorCode,
      physicalRequests: expected.requests,
      recovered: expected.recovered,
      retries: expected.retries,
      transitions: expected.transitions,
      toolErrors: expected.toolErrors ?? 0,
      passed: true,
    });
    expect(report.passed).toBe(true);
    // The mock really served that many requests, and the planted prompt really went upstream.
    expect(upstream.requestsFor(protocol)).toHaveLength(expected.requests);
    expect(upstream.requests.some((request) => request.bodyText.includes(`${MARKER}-prompt`))).toBe(true);
    expect(result!.samples).toHaveLength(expected.requests);

    const { result: resultText, trace } = await readOutputFiles();
    for (const text of [resultText, trace, printed]) expect(text).not.toContain(MARKER);
    const document = JSON.parse(resultText) as { results: unknown[]; totals: { passed: number } };
    expect(document.totals.passed).toBe(1);
    const traceLines = trace.trimEnd().split('\n').map((line) => JSON.parse(line) as { event: string });
    expect(traceLines.filter((entry) => entry.event === 'stats-sample')).toHaveLength(expected.requests);
    expect(traceLines.at(-1)).toMatchObject({ event: 'run-end', passed: true });

    const statsText = await readFile(join(directory, 'stats.json'), 'utf8');
    expect(statsText).not.toContain(MARKER);
    expect((JSON.parse(statsText) as { samples: unknown[] }).samples).toHaveLength(expected.requests);
  });
});

it('the content really reached the host side: the mock answer text is counted per segment (R9.2)', async () => {
  const report = await runProbe({
    scenarios: [findScenario('long-think-cut')!],
    protocols: ['chat'],
    target: { kind: 'mock' },
    outDir: join(directory, 'out'),
    statsFile: undefined,
    output: { write: () => undefined, isTTY: false },
    content: CONTENT,
    timing: TIMING,
    upstream,
  });
  expect(report.results[0]!.segments).toEqual([
    { index: 1, cause: 'start', reasoningChars: 4000, textChars: 0, toolArgumentChars: 0 },
    { index: 2, cause: 'recovery', reasoningChars: CONTENT.reasoning.length, textChars: CONTENT.answer.length, toolArgumentChars: 0 },
  ]);
});

it('a run that differs from its scenario is reported as a failure with the mismatch', async () => {
  // An extra reply the scenario never asks for: the mock still holds it afterwards.
  const scenario = findScenario('socket-drop-before-output')!;
  const withExtraReply = { ...scenario, queueReplies: (context: Parameters<typeof scenario.queueReplies>[0]) => {
    scenario.queueReplies(context);
    scenario.queueReplies(context);
  } };
  const report = await runProbe({
    scenarios: [withExtraReply],
    protocols: ['messages'],
    target: { kind: 'mock' },
    outDir: join(directory, 'out'),
    statsFile: undefined,
    output: { write: () => undefined, isTTY: false },
    timing: TIMING,
    upstream,
  });
  expect(report.passed).toBe(false);
  expect(report.results[0]!.mismatches).toEqual(['2 queued mock replies were never requested']);
});
