import { afterEach, describe, expect, it, vi } from 'vitest';
import { collectTurnEvents, createFakeFetch, fakeAdapter, textOf, type FakeNative, type FakeReply } from './fake-wire.test-helper.js';
import { runTurn, type RunTurnOptions } from './run-turn.js';
import type { TurnRecord, UsageSample } from './stats-sink.js';
import { RECOVERY_INSTRUCTION } from './checkpoint-message.js';

const MARKER = 'SECRET-MARKER-7f3a';

function baseRequest(extra: Partial<FakeNative> = {}): FakeNative {
  return {
    model: 'any-model-name',
    messages: [{ role: 'user', content: [{ type: 'text', text: `prove it ${MARKER}` }] }],
    tools: [{ name: 'lookup', inputSchema: { type: 'object' } }],
    tool_choice: 'auto',
    ...extra,
  };
}

function setup(replies: FakeReply[], options: Partial<RunTurnOptions<FakeNative>> = {}) {
  const wire = createFakeFetch(replies);
  const samples: UsageSample[] = [];
  const turns: TurnRecord[] = [];
  let nextId = 0;
  const run = runTurn({
    adapter: fakeAdapter,
    request: baseRequest(),
    target: { baseUrl: 'https://upstream.test', headers: { 'x-session-id': 'sess-1' } },
    fetch: wire.fetch,
    retry: { initialDelayMs: 0, jitterRatio: 0 },
    stats: { recordUsage: (s) => void samples.push(s), recordTurn: (t) => void turns.push(t) },
    createId: () => `id-${++nextId}`,
    ...options,
  });
  return { run, wire, samples, turns };
}

const collect = collectTurnEvents;

afterEach(() => {
  vi.useRealTimers();
});

describe('runTurn — normal and non-trigger paths (R4.2)', () => {
  it('passes a normal stream through with one request, usage and the protocol finish', async () => {
    const { run, wire, samples, turns } = setup([
      { lines: [{ r: 'think' }, { t: 'Hello' }, { u: { in: 10, out: 5 } }, { end: 'stop' }] },
    ]);
    const events = await collect(run);
    const result = await run.result;
    expect(wire.requests).toHaveLength(1);
    expect(wire.requests[0]!.body.stream).toBe(true);
    expect(events.map((e) => e.type)).toEqual(['reasoning-delta', 'text-delta', 'usage', 'finish']);
    expect(result.outcome).toBe('ok');
    expect(result.finishReason).toEqual({ unified: 'stop', raw: 'stop' });
    expect([
      result.usage.inputTokens,
      result.usage.outputTokens,
      result.usage.totalTokens,
      result.usage.complete,
    ]).toEqual([10, 5, undefined, true]);
    expect(samples).toHaveLength(1);
    expect(samples[0]).toMatchObject({
      ok: true,
      attempt: 0,
      noUsage: false,
      usage: { inputTokens: 10, outputTokens: 5 },
    });
    expect(turns).toEqual([expect.objectContaining({ outcome: 'ok', physicalRequests: 1 })]);
  });

  it('keeps an output-limit stop as the protocol finish and does not recover', async () => {
    const { run, wire } = setup([{ lines: [{ r: 'long' }, { end: 'length' }] }]);
    await collect(run);
    expect(wire.requests).toHaveLength(1);
    expect((await run.result).finishReason?.unified).toBe('length');
  });

  it('ends a cut after text as STREAM_CUT without a recovery request', async () => {
    const { run, wire, samples } = setup([{ lines: [{ r: 'think' }, { t: 'partial' }] }]);
    const events = await collect(run);
    const result = await run.result;
    expect(wire.requests).toHaveLength(1);
    expect(result.error).toMatchObject({ code: 'STREAM_CUT', retryable: false });
    expect(result.recoverySkipped).toBe('text-produced');
    expect(events.at(-1)).toMatchObject({ type: 'error' });
    expect(samples[0]).toMatchObject({ ok: false, truncated: true, recoveryScheduled: false, errorCode: 'STREAM_CUT' });
  });

  it.each([false, true])('does not recover after a tool call (partial=%s) and hands it over once', async (partial) => {
    const { run, wire } = setup([{ lines: [{ r: 'think' }, { tool: 'lookup', partial }] }]);
    const events = await collect(run);
    expect(wire.requests).toHaveLength(1);
    expect(events.filter((e) => e.type === 'tool-call-start')).toHaveLength(1);
    expect((await run.result).recoverySkipped).toBe('tool-call-produced');
  });

  it('retries an EOF with no output at all as TRANSPORT (R1.1)', async () => {
    const { run, wire, samples } = setup([{ lines: [] }, { lines: [{ t: 'ok' }, { end: 'stop' }] }]);
    const events = await collect(run);
    expect(wire.requests).toHaveLength(2);
    expect(events.find((e) => e.type === 'retry')).toMatchObject({ code: 'TRANSPORT', retryNumber: 1, attempt: 1 });
    expect(samples.map((s) => [s.ok, s.errorCode])).toEqual([
      [false, 'TRANSPORT'],
      [true, undefined],
    ]);
    expect((await run.result).outcome).toBe('ok');
  });

  it('retries an in-stream overloaded error that arrives before any output', async () => {
    const { run, wire } = setup([{ lines: [{ err: 'overloaded' }] }, { lines: [{ t: 'ok' }, { end: 'stop' }] }]);
    await collect(run);
    expect(wire.requests).toHaveLength(2);
    expect((await run.result).outcome).toBe('ok');
  });

  it('retries a connection reset before output, but a reset after output is STREAM_CUT', async () => {
    const first = setup([{ connectError: 'ECONNRESET' }, { lines: [{ t: 'ok' }, { end: 'stop' }] }]);
    await collect(first.run);
    expect(first.wire.requests).toHaveLength(2);
    const second = setup([{ lines: [{ r: 'think' }], then: 'reset' }]);
    await collect(second.run);
    expect(second.wire.requests).toHaveLength(1);
    expect((await second.run.result).error?.code).toBe('STREAM_CUT');
    expect((await second.run.result).error?.details).toMatchObject({ upstreamCode: 'TRANSPORT' });
  });
});

describe('runTurn — bounded recovery (R4.1, R4.3–R4.6)', () => {
  const cutThenAnswer: FakeReply[] = [
    { lines: [{ r: `step one ${MARKER} ` }, { r: 'step two' }] },
    { lines: [{ r: 'brief' }, { t: 'The answer.' }, { u: { in: 50, out: 20 } }, { end: 'stop' }] },
  ];

  it('sends one recovery request with the labelled checkpoint, tools disabled and a new request id', async () => {
    const { run, wire, samples, turns } = setup(cutThenAnswer);
    const events = await collect(run);
    const result = await run.result;
    expect(wire.requests).toHaveLength(2);
    const [first, second] = wire.requests;
    expect(second!.headers['x-session-id']).toBe('sess-1');
    expect(second!.headers['x-request-id']).not.toBe(first!.headers['x-request-id']);
    expect(second!.body.tool_choice).toBe('none');
    expect(second!.body.tools).toEqual(first!.body.tools);
    expect(second!.body.max_tokens).toBe(8192);
    const appended = second!.body.messages.at(-1)!;
    expect(appended).toMatchObject({ role: 'user', isMeta: true });
    expect(appended.content[0]).toMatchObject({
      type: 'text',
      text: expect.stringContaining(`step one ${MARKER} step two`),
    });
    expect(appended.content[0]).toMatchObject({ text: expect.stringContaining('input material, not an instruction') });
    expect(appended.content[1]).toEqual({ type: 'text', text: RECOVERY_INSTRUCTION });
    expect(RECOVERY_INSTRUCTION).toMatch(/800 words/);
    expect(second!.body.messages.slice(0, -1)).toEqual(first!.body.messages);

    expect(events.map((e) => e.type)).toEqual([
      'reasoning-delta',
      'reasoning-delta',
      'recovery-start',
      'reasoning-delta',
      'text-delta',
      'usage',
      'finish',
    ]);
    expect(textOf(events)).toBe('The answer.');
    expect(events.filter((e) => e.type === 'reasoning-delta' && e.delta.includes(MARKER))).toHaveLength(1);
    expect(result).toMatchObject({ outcome: 'ok', recovery: { recovered: true, recoveryId: 'id-2' } });
    expect(result.usage).toMatchObject({ inputTokens: 50, outputTokens: 20, complete: false, segmentsWithUsage: 1 });
    expect(samples.map((s) => [s.attempt, s.ok, s.noUsage, s.recoveryId, s.recoveryScheduled, s.recovered])).toEqual([
      [0, false, true, 'id-2', true, false],
      [1, true, false, 'id-2', true, true],
    ]);
    expect(turns).toEqual([
      expect.objectContaining({ outcome: 'ok', recovered: true, physicalRequests: 2, usageComplete: false }),
    ]);
  });

  it('never hands a recovery tool call to the host, nor a finish that says tool calls follow (R4.5)', async () => {
    const { run } = setup([cutThenAnswer[0]!, { lines: [{ tool: 'lookup' }, { t: 'Answer' }, { end: 'tool-calls' }] }]);
    const events = await collect(run);
    expect(events.some((e) => e.type.startsWith('tool-call'))).toBe(false);
    const result = await run.result;
    expect(result.recovery?.recovered).toBe(true);
    expect(result.finishReason).toEqual({ unified: 'stop', raw: undefined });
    expect(events.filter((e) => e.type === 'finish')).toEqual([{ type: 'finish', finishReason: { unified: 'stop', raw: undefined } }]);
  });

  it.each<[string, FakeReply, string]>([
    ['whitespace text', { lines: [{ t: '  \n' }, { end: 'stop' }] }, 'no-text'],
    ['a second cut', { lines: [{ r: 'again' }] }, 'cut'],
    ['an HTTP 503', { status: 503 }, 'error'],
  ])('fails with STREAM_CUT after %s and never sends a third request', async (_name, secondReply, failure) => {
    const { run, wire, turns } = setup([cutThenAnswer[0]!, secondReply, cutThenAnswer[1]!]);
    await collect(run);
    const result = await run.result;
    expect(wire.requests).toHaveLength(2);
    expect(result.error).toMatchObject({
      code: 'STREAM_CUT',
      retryable: false,
      details: expect.objectContaining({ recoveryFailure: failure }),
    });
    expect(result.recovery?.recovered).toBe(false);
    expect(turns).toEqual([expect.objectContaining({ outcome: 'failed', recovered: false })]);
  });

  it('skips recovery when the checkpoint is over its limit (never trimmed)', async () => {
    const { run, wire } = setup(cutThenAnswer, { streamRecovery: { checkpointMaxChars: 5 } });
    await collect(run);
    expect(wire.requests).toHaveLength(1);
    expect(await run.result).toMatchObject({ recoverySkipped: 'checkpoint-too-large', error: { code: 'STREAM_CUT' } });
  });

  it('skips recovery when the estimated context does not fit the known window', async () => {
    const { run, wire } = setup(cutThenAnswer, { streamRecovery: { contextWindowTokens: 8200 } });
    await collect(run);
    expect(wire.requests).toHaveLength(1);
    expect((await run.result).recoverySkipped).toBe('context-capacity');
  });

  it('skips recovery when less than 512 known output tokens remain', async () => {
    const { run, wire } = setup([{ lines: [{ r: 'think' }, { u: { out: 600 } }] }], {
      request: baseRequest({ max_tokens: 1000 }),
    });
    await collect(run);
    expect(wire.requests).toHaveLength(1);
    expect((await run.result).recoverySkipped).toBe('output-budget');
  });

  it('caps the recovery budget by what is left of the host cap', async () => {
    const { run, wire } = setup([{ lines: [{ r: 'think' }, { u: { out: 1000 } }] }, cutThenAnswer[1]!], {
      request: baseRequest({ max_tokens: 4000 }),
    });
    await collect(run);
    expect(wire.requests[1]!.body.max_tokens).toBe(3000);
    expect((await run.result).usage).toMatchObject({ outputTokens: 1020, complete: false });
  });

  it('ends the turn recorded, with a typed error, when the adapter throws while building the recovery (R6.2)', async () => {
    const { run, wire, samples, turns } = setup(cutThenAnswer, {
      adapter: {
        ...fakeAdapter,
        appendMessages: () => {
          throw new Error('adapter bug');
        },
      },
    });
    const events = await collect(run);
    const result = await run.result;
    expect(wire.requests).toHaveLength(1);
    expect(events.map((e) => e.type)).toEqual(['reasoning-delta', 'reasoning-delta', 'error']);
    expect(result).toMatchObject({ outcome: 'error', error: { code: 'UNKNOWN', message: 'Unexpected failure in runTurn.' } });
    expect(result.error?.cause).toEqual(new Error('adapter bug'));
    expect(samples.map((s) => [s.attempt, s.recoveryScheduled])).toEqual([[0, true]]);
    expect(turns).toEqual([expect.objectContaining({ outcome: 'failed', errorCode: 'UNKNOWN', physicalRequests: 1 })]);
  });

  it('records a recovery request whose stream could not be decoded, and ends STREAM_CUT (R4.9, R6.1)', async () => {
    let decodes = 0;
    const { run, wire, samples, turns } = setup(cutThenAnswer, {
      adapter: {
        ...fakeAdapter,
        decodeStream: (body) => {
          decodes += 1;
          if (decodes === 2) throw new Error('decoder bug');
          return fakeAdapter.decodeStream(body);
        },
      },
    });
    await collect(run);
    const result = await run.result;
    expect(wire.requests).toHaveLength(2);
    expect(result).toMatchObject({
      outcome: 'error',
      error: { code: 'STREAM_CUT', details: expect.objectContaining({ recoveryFailure: 'error' }) },
      recovery: { recovered: false },
    });
    expect(samples.map((s) => [s.attempt, s.ok, s.errorCode, s.recoveryScheduled])).toEqual([
      [0, false, 'STREAM_CUT', true],
      [1, false, 'UNKNOWN', true],
    ]);
    expect(turns).toEqual([expect.objectContaining({ outcome: 'failed', physicalRequests: 2 })]);
  });

  it('does not recover when streamRecovery is false', async () => {
    const { run, wire } = setup(cutThenAnswer, { streamRecovery: false });
    await collect(run);
    expect(wire.requests).toHaveLength(1);
    expect((await run.result).recoverySkipped).toBe('disabled');
  });
});
