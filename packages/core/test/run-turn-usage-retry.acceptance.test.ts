/**
 * R1, R4.10, R5, R6.1/R6.2, msw-driven
 * through @turnguard/testkit for all three protocols.
 */
import { scenario } from '@turnguard/testkit';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { USAGE_FIELDS, type Protocol } from '../src/index.js';
import { startUpstream } from './msw-upstream.js';
import { collectEvents, enqueue, MARKER, PROTOCOLS, startTurn, textOf } from './turn-harness.js';

const { upstream, server } = startUpstream();
afterEach(() => {
  vi.useRealTimers();
  upstream.reset();
});
afterAll(() => server.close());

const cutThinking = (p: Protocol) => scenario.for(p).reasoning(`Thinking hard. ${MARKER}`).eof();
const answer = (p: Protocol) => scenario.for(p).text('Done.');
const OVERLOADED_STREAM_ERROR = {
  chat: { type: 'server_error', message: 'The server is overloaded' },
  messages: { type: 'overloaded_error', message: 'Overloaded' },
  responses: { type: 'server_error', code: 'server_error', message: 'The server had an error' },
} as const;

describe.each(PROTOCOLS)('runTurn usage and retries over %s (R5, R1)', (protocol) => {
  it('row 12: segment 1 without usage, segment 2 with → usage is segment 2’s, complete false, first sample noUsage with the shared recoveryId', async () => {
    enqueue(upstream, protocol, cutThinking(protocol), answer(protocol).usage({ input: 1200, output: 300 }));
    const { run, samples, turns } = startTurn(protocol);
    const events = await collectEvents(run);
    const result = await run.result;
    expect(result.usage).toMatchObject({
      inputTokens: 1200,
      outputTokens: 300,
      complete: false,
      segmentCount: 2,
      segmentsWithUsage: 1,
    });
    expect(samples).toHaveLength(2);
    expect(samples[0]).toMatchObject({ attempt: 0, noUsage: true, usage: {}, recoveryScheduled: true });
    expect(samples[0]!.recoveryId).toBeDefined();
    expect(samples[1]).toMatchObject({
      attempt: 1,
      noUsage: false,
      recoveryId: samples[0]!.recoveryId,
      usage: { inputTokens: 1200, outputTokens: 300 },
    });
    expect(events.filter((e) => e.type === 'usage')).toEqual([
      expect.objectContaining({ usage: expect.objectContaining({ inputTokens: 1200 }) }),
    ]);
    expect(turns).toEqual([expect.objectContaining({ usageComplete: false, physicalRequests: 2 })]);
  });

  // Chat and Responses put usage only on the terminal frame, so a cut segment 1 never carries usage on
  // their wire (row 12 covers that); the two-segment sum is shown where the wire has it: Messages' message_start.
  it.runIf(protocol === 'messages')(
    'row 13: both segments with usage → known counts summed, 2 physical samples, 1 logical turn',
    async () => {
      enqueue(
        upstream,
        protocol,
        cutThinking(protocol).usage({ input: 1000, output: 50 }),
        answer(protocol).usage({ input: 1100, output: 200 }),
      );
      const { run, samples, turns } = startTurn(protocol);
      await collectEvents(run);
      const result = await run.result;
      expect(upstream.requestsFor(protocol)).toHaveLength(2);
      expect(samples).toHaveLength(2);
      expect(turns).toEqual([expect.objectContaining({ physicalRequests: 2, recovered: true })]);
      expect(samples.every((s) => !s.noUsage)).toBe(true);
      // Segment 1 was cut before its message_delta: its known output is message_start's 1, not the 50 never sent.
      expect(samples.map((sample) => [sample.usage.inputTokens, sample.usage.outputTokens])).toEqual([
        [1000, 1],
        [1100, 200],
      ]);
      // R5.2: the sum of the counts actually reported, and complete because both segments reported them.
      expect(result.usage).toMatchObject({ inputTokens: 2100, outputTokens: 201, complete: true });
    },
  );

  it('row 14: neither segment with usage → every count unknown, never 0', async () => {
    enqueue(upstream, protocol, cutThinking(protocol), answer(protocol));
    const { run, samples } = startTurn(protocol);
    const events = await collectEvents(run);
    const result = await run.result;
    for (const field of USAGE_FIELDS) expect(result.usage[field]).toBeUndefined();
    expect(result.usage.complete).toBe(false);
    expect(samples.map((s) => [s.noUsage, s.usage])).toEqual([
      [true, {}],
      [true, {}],
    ]);
    expect(events.some((e) => e.type === 'usage')).toBe(false);
  });

  it.each([
    ['429', () => scenario.for(protocol).httpError(429)],
    ['500', () => scenario.for(protocol).httpError(500)],
    ['529', () => scenario.for(protocol).httpError(529)],
    [
      'an in-stream overloaded error before any output',
      () => scenario.for(protocol).streamError(OVERLOADED_STREAM_ERROR[protocol]),
    ],
    [
      'a stream with bytes but no host-visible output',
      () => scenario.for(protocol).text('never shown').eof({ afterEvents: 1 }),
    ],
  ])('row 15: %s is retried per R1 and recorded as a physical request', async (_name, failure) => {
    enqueue(upstream, protocol, failure(), answer(protocol));
    const { run, samples, turns } = startTurn(protocol);
    const events = await collectEvents(run);
    expect(upstream.requestsFor(protocol)).toHaveLength(2);
    expect(events.filter((e) => e.type === 'retry')).toHaveLength(1);
    expect(textOf(events)).toBe('Done.');
    expect((await run.result).outcome).toBe('ok');
    expect(samples.map((s) => s.ok)).toEqual([false, true]);
    expect(turns).toEqual([expect.objectContaining({ outcome: 'ok', physicalRequests: 2 })]);
  });

  it('row 15: a 429 waits exactly its retry-after before the next request (fake timers)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    enqueue(
      upstream,
      protocol,
      scenario.for(protocol).httpError(429, { headers: { 'retry-after': '7' } }),
      answer(protocol),
    );
    const { run } = startTurn(protocol, { retry: {} });
    const settled = run.result.then((result) => result);
    await vi.advanceTimersByTimeAsync(6_999);
    expect(upstream.requestsFor(protocol)).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect((await settled).outcome).toBe('ok');
    expect(upstream.requestsFor(protocol)).toHaveLength(2);
  });

  it('row 15: a 429 storm past 10 retries fails with rate_limit after 11 physical requests', async () => {
    const storm = Array.from({ length: 12 }, () => scenario.for(protocol).httpError(429));
    enqueue(upstream, protocol, ...storm);
    const { run, samples, turns } = startTurn(protocol);
    await collectEvents(run);
    expect(upstream.requestsFor(protocol)).toHaveLength(11);
    expect((await run.result).error).toMatchObject({ kind: 'rate_limit' });
    expect(samples).toHaveLength(11);
    expect(turns).toEqual([
      expect.objectContaining({ outcome: 'failed', errorCode: 'RATE_LIMIT', physicalRequests: 11 }),
    ]);
  });

  it('row 15: a cut after output the host consumed is not retried', async () => {
    const words = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    enqueue(upstream, protocol, scenario.for(protocol).text(words).destroySocket({ afterEvents: 8 }), answer(protocol));
    const { run } = startTurn(protocol);
    const events = await collectEvents(run);
    expect(textOf(events)).not.toBe('');
    expect(upstream.requestsFor(protocol)).toHaveLength(1);
    expect((await run.result).error).toMatchObject({ code: 'STREAM_CUT', retryable: false });
  });

  it('row 16: no sink record, warning or error message contains the prompt or checkpoint text', async () => {
    enqueue(upstream, protocol, cutThinking(protocol), scenario.for(protocol).text('  '));
    const { run, samples, turns } = startTurn(protocol, { warnings: ['image-dropped: 1 image could not be read'] });
    const events = await collectEvents(run);
    const result = await run.result;
    expect(upstream.requestsFor(protocol)[1]!.bodyText).toContain(MARKER); // the marker really went over the wire
    const outward = JSON.stringify({
      samples,
      turns,
      warnings: [result.warnings, events.filter((e) => e.type === 'warning')],
      error: [result.error?.message, result.error?.details, result.segments],
    });
    expect(outward).not.toContain(MARKER);
    expect(samples.map((s) => s.warnings)).toEqual([
      ['image-dropped: 1 image could not be read'],
      ['image-dropped: 1 image could not be read'],
    ]);
  });
});
