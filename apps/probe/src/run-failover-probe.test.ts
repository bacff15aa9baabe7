import { PROTOCOLS, type Protocol } from '@turnguard/core';
import { describe, expect, it } from 'vitest';
import { probeOnMock, useProbeFixtures } from './probe-on-mock.test-helper.js';

const MARKER = 'FAILOVER-PROBE-MARKER-c41d';
const CONTENT = { prompt: `Is 2^31 - 1 prime? ${MARKER}-prompt`, reasoning: `Small primes first ${MARKER}-reasoning. `, answer: `It is prime ${MARKER}-answer, a Mersenne prime.` };

/** Written here, not read from the scenarios: what each fail-over scenario must show (R11, R9.1). */
const EXPECTED: Record<string, { requests: number; retries: number; events: string[]; models: (protocol: Protocol) => string[] }> = {
  'fail-over': { requests: 4, retries: 2, events: ['fallback'], models: () => ['mock', 'mock', 'mock', 'fallback'] },
  'circuit-open-close': { requests: 6, retries: 2, events: ['fallback', 'circuit'], models: () => ['mock', 'mock', 'mock', 'fallback', 'fallback', 'mock'] },
  'stall-caught': { requests: 2, retries: 0, events: ['fallback'], models: () => ['mock', 'fallback'] },
  continuation: { requests: 2, retries: 0, events: ['continuation-start'], models: (protocol) => ['mock', protocol === 'responses' ? 'fallback' : 'mock'] },
};

const fixtures = useProbeFixtures('turnguard-probe-failover-');

describe.each(Object.keys(EXPECTED))('fail-over scenario %s (R11, R9.1)', (name) => {
  it.each(PROTOCOLS)('on %s: the physical requests it took, each with its model; no content in any file (R9.2, R4.10)', async (protocol: Protocol) => {
    const expected = EXPECTED[name]!;
    const { report, printed, files } = await probeOnMock(name, protocol, { directory: fixtures.directory, upstream: fixtures.upstream, content: CONTENT });
    const [result] = report.results;
    expect(result).toMatchObject({ scenario: name, outcome: 'ok', physicalRequests: expected.requests, retries: expected.retries, mismatches: [], passed: true });
    expect(result!.samples.map((sample) => (sample.model === 'turnguard-probe-fallback' ? 'fallback' : 'mock'))).toEqual(expected.models(protocol));
    for (const sample of result!.samples) if (sample.model === 'turnguard-probe-fallback') expect(sample.fallbackFrom).toBe('turnguard-probe-mock');
    const events = files.trace.trimEnd().split('\n').map((line) => (JSON.parse(line) as { event: string }).event);
    for (const event of expected.events) expect(events).toContain(event);
    for (const text of [files.trace, files.result, printed, files.stats]) expect(text).not.toContain(MARKER);
  });
});
