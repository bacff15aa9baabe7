/**
 * R9.1, R9.2: every scenario on every protocol against the real loopback mock
 * (real sockets, real runTurn / runAgentLoop), asserting outcome, physical
 * requests, and that the result and trace files hold no content (R4.10).
 */
import { join } from 'node:path';
import { PROTOCOLS, type Protocol } from '@turnguard/core';
import { describe, expect, it } from 'vitest';
import { findScenario, runProbe, type ProbeContent } from './index.js';
import { PROBE_TIMING, probeOnMock, useProbeFixtures } from './probe-on-mock.test-helper.js';

const MARKER = 'PROBE-CONTENT-MARKER-7f3a';
const CONTENT: ProbeContent = {
  prompt: `Is 2^31 - 1 prime? ${MARKER}-prompt`,
  reasoning: `I check small primes first ${MARKER}-reasoning then larger ones. `,
  answer: `It is prime ${MARKER}-answer.`,
};

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

const fixtures = useProbeFixtures('turnguard-probe-');

describe.each(Object.keys(EXPECTED))('scenario %s (R9.1)', (name) => {
  it.each(PROTOCOLS)('on %s: expected outcome and request count; result/trace files hold no content (R9.2, R4.10)', async (protocol: Protocol) => {
    const expected = EXPECTED[name]!;
    const { report, printed, files } = await probeOnMock(name, protocol, { directory: fixtures.directory, upstream: fixtures.upstream, content: CONTENT });
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
    expect(fixtures.upstream.requestsFor(protocol)).toHaveLength(expected.requests);
    expect(fixtures.upstream.requests.some((request) => request.bodyText.includes(`${MARKER}-prompt`))).toBe(true);
    expect(result!.samples).toHaveLength(expected.requests);

    const { result: resultText, trace, stats: statsText } = files;
    for (const text of [resultText, trace, printed]) expect(text).not.toContain(MARKER);
    const document = JSON.parse(resultText) as { results: unknown[]; totals: { passed: number } };
    expect(document.totals.passed).toBe(1);
    const traceLines = trace.trimEnd().split('\n').map((line) => JSON.parse(line) as { event: string });
    expect(traceLines.filter((entry) => entry.event === 'stats-sample')).toHaveLength(expected.requests);
    expect(traceLines.at(-1)).toMatchObject({ event: 'run-end', passed: true });

    expect(statsText).not.toContain(MARKER);
    expect((JSON.parse(statsText) as { samples: unknown[] }).samples).toHaveLength(expected.requests);
  });
});

it('the content really reached the host side: the mock answer text is counted per segment (R9.2)', async () => {
  const report = await runProbe({
    scenarios: [findScenario('long-think-cut')!],
    protocols: ['chat'],
    target: { kind: 'mock' },
    outDir: join(fixtures.directory, 'out'),
    statsFile: undefined,
    output: { write: () => undefined, isTTY: false },
    content: CONTENT,
    timing: PROBE_TIMING,
    upstream: fixtures.upstream,
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
    outDir: join(fixtures.directory, 'out'),
    statsFile: undefined,
    output: { write: () => undefined, isTTY: false },
    timing: PROBE_TIMING,
    upstream: fixtures.upstream,
  });
  expect(report.passed).toBe(false);
  expect(report.results[0]!.mismatches).toEqual(['2 queued mock replies were never requested']);
});
