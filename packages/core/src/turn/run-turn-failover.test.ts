import { afterEach, describe, expect, it, vi } from 'vitest';
import { LIBRARY_RETRY_BUDGET } from '../failover/retry-budget.js';
import type { TurnEvent } from '../types/turn-event.js';
import { collectTurnEvents, textOf } from './fake-wire.test-helper.js';
import {
  PRIMARY,
  SECOND,
  THIRD,
  chainRequest,
  createChainAdapter,
  fallbackTo,
  type ChainNative,
  type ChainReply,
} from './fake-chain-wire.test-helper.js';
import type { RunTurnOptions } from './run-turn.js';
import { FAST_BUDGET as FAST, startChainTurn as setup } from './chain-turn.test-helper.js';

const ok = (text = 'Fallback answer.'): ChainReply => ({ lines: [{ t: text }, { u: { in: 9, out: 3 } }, { end: 'stop' }] });
const status = (code: number, body?: string): ChainReply => ({ status: code, ...(body === undefined ? {} : { body }) });
const ofType = <T extends TurnEvent['type']>(events: TurnEvent[], type: T) => events.filter((event): event is Extract<TurnEvent, { type: T }> => event.type === type);

afterEach(() => {
  vi.useRealTimers();
});

describe('R11.2 when a chain fails over', () => {
  it('after the budget: 3 consecutive retryable failures move to the fallback, which answers', async () => {
    const { run, wire, samples, turns } = setup({ [PRIMARY]: [status(503), status(503), status(503)], [SECOND]: [ok()] });
    const events = await collectTurnEvents(run);
    const result = await run.result;
    expect(wire.to(PRIMARY)).toHaveLength(3);
    expect(wire.to(SECOND).map((request) => request.body.model)).toEqual(['second-model']);
    expect(textOf(events)).toBe('Fallback answer.');
    expect(ofType(events, 'retry')).toHaveLength(2);
    expect(ofType(events, 'fallback')).toEqual([
      { type: 'fallback', from: { upstream: 'primary', model: 'primary-model', protocol: 'chat' }, to: { upstream: 'second', model: 'second-model', protocol: 'chat' }, reason: 'retry-budget', errorCode: 'SERVER' },
    ]);
    expect(result).toMatchObject({ outcome: 'ok', model: 'second-model', fallbacks: 1, continued: false });
    expect(result.chain).toEqual([
      { upstream: 'primary', model: 'primary-model', protocol: 'chat', outcome: 'failed', attempts: 3, errorCode: 'SERVER' },
      { upstream: 'second', model: 'second-model', protocol: 'chat', outcome: 'answered', attempts: 1 },
    ]);
    // R11.7: one sample per physical request, each with its model and the model it stood in for.
    expect(samples.map((sample) => [sample.model, sample.fallbackFrom, sample.ok])).toEqual([
      ['primary-model', undefined, false],
      ['primary-model', undefined, false],
      ['primary-model', undefined, false],
      ['second-model', 'primary-model', true],
    ]);
    expect(turns).toEqual([expect.objectContaining({ model: 'second-model', outcome: 'ok', physicalRequests: 4, fallbacks: 1 })]);
  });

  it('R1.9 with the library budget: 3 consecutive overloads fail over, other errors are retried on the same target', async () => {
    const { run, wire } = setup(
      { [PRIMARY]: [status(500), status(529), status(529), status(529)], [SECOND]: [ok()] },
      { retryBudget: { ...LIBRARY_RETRY_BUDGET, initialDelayMs: 1, maxDelayMs: 2 } },
    );
    await collectTurnEvents(run);
    expect(wire.to(PRIMARY)).toHaveLength(4);
    expect(wire.to(SECOND)).toHaveLength(1);
    expect((await run.result).model).toBe('second-model');
  });

  it('at once on a context-length error: the same model is never retried', async () => {
    const { run, wire } = setup({ [PRIMARY]: [status(400, 'context length exceeded')], [SECOND]: [ok()] });
    const events = await collectTurnEvents(run);
    expect(wire.to(PRIMARY)).toHaveLength(1);
    expect(ofType(events, 'fallback')[0]).toMatchObject({ reason: 'context-length', errorCode: 'PROMPT_TOO_LONG' });
    expect((await run.result).outcome).toBe('ok');
  });

  it.each([
    ['content filter', status(400, 'content filter'), 'CONTENT_FILTER'],
    ['authentication', status(401), 'AUTH'],
    ['invalid request', status(400, 'bad field'), 'INVALID_REQUEST'],
  ])('never on a %s: it reaches the host as it is', async (_name, reply, code) => {
    const { run, wire } = setup({ [PRIMARY]: [reply], [SECOND]: [ok()] });
    const events = await collectTurnEvents(run);
    expect(wire.to(SECOND)).toHaveLength(0);
    expect(wire.to(PRIMARY)).toHaveLength(1);
    expect(ofType(events, 'error')[0]?.error.code).toBe(code);
    expect(ofType(events, 'fallback')).toEqual([]);
  });

  it('never once a tool call reached the host (it would run twice)', async () => {
    const { run, wire } = setup({ [PRIMARY]: [{ lines: [{ tool: 'lookup' }], then: 'reset' }], [SECOND]: [ok()] });
    const events = await collectTurnEvents(run);
    expect(wire.to(SECOND)).toHaveLength(0);
    expect(ofType(events, 'error')[0]?.error.code).toBe('STREAM_CUT');
  });

  it('never after visible text without continuation: the cut ends the turn as STREAM_CUT (R4.2)', async () => {
    const { run, wire } = setup({ [PRIMARY]: [{ lines: [{ t: 'Half an ans' }], then: 'reset' }], [SECOND]: [ok()] });
    const events = await collectTurnEvents(run);
    expect(wire.to(SECOND)).toHaveLength(0);
    expect(ofType(events, 'error')[0]?.error).toMatchObject({ code: 'STREAM_CUT', retryable: false });
  });

  it('after relayed thinking (R4 off): the fallback follows with block ids of its own (R8.7)', async () => {
    const { run, wire } = setup({ [PRIMARY]: [{ lines: [{ r: 'thinking…' }], then: 'eof' }], [SECOND]: [ok()] }, { streamRecovery: false });
    const events = await collectTurnEvents(run);
    expect(wire.to(PRIMARY)).toHaveLength(1);
    expect(ofType(events, 'fallback')[0]?.reason).toBe('cut');
    expect(ofType(events, 'text-delta').map((event) => event.id)).toEqual(['fallback-2-text-0']);
    expect((await run.result).outcome).toBe('ok');
  });

  it('R4 first: a thinking stream cut before its answer is recovered on the same target, not failed over', async () => {
    const { run, wire } = setup({ [PRIMARY]: [{ lines: [{ r: 'long thinking' }], then: 'eof' }, ok('Recovered.')], [SECOND]: [ok()] });
    const events = await collectTurnEvents(run);
    expect(wire.to(PRIMARY)).toHaveLength(2);
    expect(wire.to(SECOND)).toHaveLength(0);
    expect(textOf(events)).toBe('Recovered.');
    expect((await run.result).recovery?.recovered).toBe(true);
  });

  it('with no fallback left, the budget retries, then the last error ends the turn', async () => {
    const { run, wire } = setup({ [PRIMARY]: [status(429), status(429), status(429), status(429), status(429)] }, { fallbacks: [] });
    const events = await collectTurnEvents(run);
    expect(wire.to(PRIMARY)).toHaveLength(FAST.maxAttemptsPerTarget);
    expect(ofType(events, 'error')[0]?.error.code).toBe('RATE_LIMIT');
  });

  it('walks the whole chain in order, each entry recorded', async () => {
    const { run, wire } = setup(
      { [PRIMARY]: [status(400, 'context')], [SECOND]: [status(400, 'context')], [THIRD]: [ok('third')] },
      { fallbacks: [fallbackTo(SECOND, 'second-model'), fallbackTo(THIRD, 'third-model')] },
    );
    const events = await collectTurnEvents(run);
    expect(wire.requests.map((request) => request.body.model)).toEqual(['primary-model', 'second-model', 'third-model']);
    expect(ofType(events, 'fallback').map((event) => `${event.from.model}->${event.to.model}`)).toEqual(['primary-model->second-model', 'second-model->third-model']);
    const samples = (await run.result).segments.map((segment) => [segment.model, segment.fallbackFrom]);
    expect(samples).toEqual([['primary-model', undefined], ['second-model', 'primary-model'], ['third-model', 'second-model']]);
  });

  it('R5/R11.7: the turn\'s usage is the answering model\'s own, never summed across models', async () => {
    const thinkingWithUsage: ChainReply = { lines: [{ r: 'thinking' }, { u: { in: 1000, out: 50 } }], then: 'eof' };
    const { run } = setup({ [PRIMARY]: [thinkingWithUsage], [SECOND]: [ok()] }, { streamRecovery: false });
    const events = await collectTurnEvents(run);
    const result = await run.result;
    expect(result.usage).toMatchObject({ inputTokens: 9, outputTokens: 3 });
    expect(ofType(events, 'usage').at(-1)?.usage).toMatchObject({ inputTokens: 9, outputTokens: 3 });
    expect(result.segments.map((segment) => segment.usage?.inputTokens)).toEqual([1000, 9]);
  });

  it('R1.6: an abort during the backoff ends the turn ABORTED and sends nothing more', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const { run, wire } = setup({ [PRIMARY]: [status(503), status(503)] }, { fallbacks: [], retryBudget: { ...FAST, initialDelayMs: 5000, maxDelayMs: 5000 }, signal: controller.signal });
    const done = collectTurnEvents(run);
    await vi.advanceTimersByTimeAsync(100);
    controller.abort();
    const events = await done;
    expect(wire.requests).toHaveLength(1);
    expect(ofType(events, 'error')[0]?.error.code).toBe('ABORTED');
  });

  it('R1.3: a Retry-After longer than the budget allows is not waited for: the fallback answers at once', async () => {
    const { run, wire } = setup({ [PRIMARY]: [{ status: 429, headers: { 'retry-after': '60' } }], [SECOND]: [ok()] }, { retryBudget: { ...FAST, maxServerWaitMs: 15_000 } });
    await collectTurnEvents(run);
    expect(wire.to(PRIMARY)).toHaveLength(1);
    expect(wire.to(SECOND)).toHaveLength(1);
  });

  it('R1.7: the host\'s credential refresh still runs once on its own target', async () => {
    let refreshed = 0;
    const { run, wire } = setup({ [PRIMARY]: [status(401), ok('after refresh')] }, {
      retry: { refreshCredentials: async () => ({ apiKey: `new-key-${++refreshed}` }) },
    });
    const events = await collectTurnEvents(run);
    expect(refreshed).toBe(1);
    expect(wire.to(PRIMARY)).toHaveLength(2);
    expect(textOf(events)).toBe('after refresh');
  });
});

describe('R11.1 a fallback of another protocol family', () => {
  it('gets the request through the neutral form: host-only fields and thinking are left out, with one warning', async () => {
    const request = chainRequest({
      service_tier: 'priority',
      temperature: 0.2,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'q1' }] },
        { role: 'assistant', content: [{ type: 'reasoning', text: 'signed thinking', signature: 'sig' }, { type: 'text', text: 'a1' }] },
        { role: 'user', content: [{ type: 'text', text: 'q2' }] },
      ],
    });
    const { run, wire } = setup({ [PRIMARY]: [status(400, 'context')], [SECOND]: [ok('from messages')] }, { request, fallbacks: [fallbackTo(SECOND, 'claude-x', { protocol: 'messages' })] });
    const events = await collectTurnEvents(run);
    const sent = wire.to(SECOND)[0]!.body;
    expect(sent.model).toBe('claude-x');
    expect(sent.service_tier).toBeUndefined();
    expect(sent.temperature).toBe(0.2);
    expect(JSON.stringify(sent.messages)).not.toContain('signed thinking');
    expect(sent.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(ofType(events, 'warning').map((event) => event.message)).toEqual(['reasoning from the conversation was left out of a fallback request of another protocol family']);
    expect(ofType(events, 'fallback')[0]?.to.protocol).toBe('messages');
    expect(textOf(events)).toBe('from messages');
    // The other family's own finish word is not the host's: only the unified reason crosses (a Chat client never reads `end_turn`).
    expect(ofType(events, 'finish')).toEqual([{ type: 'finish', finishReason: { unified: 'stop', raw: undefined } }]);
    expect((await run.result).finishReason).toEqual({ unified: 'stop', raw: undefined });
  });

  it('the host\'s own target may speak another family too (targetAdapter): its request is translated the same way', async () => {
    const { run, wire } = setup({ [PRIMARY]: [ok('from a messages target')] }, { request: chainRequest({ service_tier: 'priority' }), targetAdapter: createChainAdapter('messages'), fallbacks: [] });
    const events = await collectTurnEvents(run);
    expect(wire.requests.map((request) => request.baseUrl)).toEqual([PRIMARY]);
    expect(wire.requests[0]!.body.service_tier).toBeUndefined();
    expect(textOf(events)).toBe('from a messages target');
    expect((await run.result).chain?.[0]).toMatchObject({ protocol: 'messages', outcome: 'answered' });
  });

  it('is skipped, never approximated, when the request uses what the other family cannot answer', async () => {
    const { run, wire } = setup(
      { [PRIMARY]: [status(400, 'context')], [SECOND]: [ok('unexpected')], [THIRD]: [ok('same family')] },
      { request: chainRequest({ n: 2 }), fallbacks: [fallbackTo(SECOND, 'claude-x', { protocol: 'messages' }), fallbackTo(THIRD, 'third-model')] },
    );
    const events = await collectTurnEvents(run);
    expect(wire.to(SECOND)).toHaveLength(0);
    expect(textOf(events)).toBe('same family');
    expect((await run.result).chain?.[1]).toMatchObject({ model: 'claude-x', outcome: 'skipped', skippedBecause: 'n' });
  });
});

describe('runTurn fail-over options (R11, call time)', () => {
  it.each([
    ['a fallback without a model', { fallbacks: [{ ...fallbackTo(SECOND, 'x'), model: '' }] }, /fallbacks\[0\]\.model/],
    ['an unknown prefill dialect', { fallbacks: [{ ...fallbackTo(SECOND, 'x'), prefill: 'yes' as never }] }, /fallbacks\[0\]\.prefill must be one of/],
    ['an unknown continuation mode', { continuation: 'always' as never }, /continuation must be "off" or "prefill"/],
    ['a bad time limit', { timeLimits: { stallMs: 5 } as never }, /not a known limit/],
    ['R1.11 with a chain', { retry: { unattended: true } }, /retry.unattended is for a single target/],
    ['a broken budget', { retryBudget: { ...FAST, maxAttemptsPerTarget: 0 } }, /maxAttemptsPerTarget/],
  ])('%s is a TurnError at call time', (_name, options, message) => {
    expect(() => setup({}, options as Partial<RunTurnOptions<ChainNative>>)).toThrow(message);
  });
});
