import { afterEach, describe, expect, it, vi } from 'vitest';
import { INTERACTIVE_RETRY_BUDGET } from '../failover/retry-budget.js';
import type { AssistantMessage } from '../types/message.js';
import type { TurnEvent } from '../types/turn-event.js';
import { collectTurnEvents, textOf } from './fake-wire.test-helper.js';
import { PRIMARY, SECOND, chainRequest, createChainAdapter, createChainFetch, fallbackTo, type ChainNative, type ChainReply } from './fake-chain-wire.test-helper.js';
import { runTurn, type RunTurnOptions } from './run-turn.js';
import type { UsageSample } from './stats-sink.js';

function setup(script: Record<string, ChainReply[]>, options: Partial<RunTurnOptions<ChainNative>> = {}) {
  const wire = createChainFetch(script);
  const samples: UsageSample[] = [];
  const run = runTurn({
    adapter: createChainAdapter('chat'),
    request: chainRequest(),
    target: { baseUrl: PRIMARY },
    upstream: 'primary',
    prefill: 'trailing-message',
    fetch: wire.fetch,
    retryBudget: { ...INTERACTIVE_RETRY_BUDGET, initialDelayMs: 1, maxDelayMs: 1, burst: undefined },
    continuation: 'prefill',
    stats: { recordUsage: (sample) => void samples.push(sample), recordTurn: () => undefined },
    ...options,
  });
  return { run, wire, samples };
}

const cutMidAnswer: ChainReply = { lines: [{ t: 'The quick ' }, { t: 'brown ' }], then: 'reset' };
const rest: ChainReply = { lines: [{ t: 'fox jumps.' }, { u: { in: 20, out: 4 } }, { end: 'stop' }] };
const lastMessage = (body: ChainNative) => body.messages.at(-1) as AssistantMessage & { providerFields?: Record<string, unknown> };
const ofType = <T extends TurnEvent['type']>(events: TurnEvent[], type: T) => events.filter((event): event is Extract<TurnEvent, { type: T }> => event.type === type);

afterEach(() => {
  vi.useRealTimers();
});

describe('R11.6 mid-answer continuation (opt-in)', () => {
  it('a cut after visible text: one request with the answer so far as a prefill, tools off; the host reads one whole answer in one block', async () => {
    const { run, wire, samples } = setup({ [PRIMARY]: [cutMidAnswer, rest] });
    const events = await collectTurnEvents(run);
    expect(wire.requests).toHaveLength(2);
    const continuation = wire.requests[1]!.body;
    // Trailing whitespace removed: Anthropic refuses a prefill ending with it (decision 0401).
    expect(lastMessage(continuation)).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'The quick brown' }] });
    expect(continuation.tool_choice).toBe('none');
    expect(textOf(events)).toBe('The quick brown fox jumps.');
    expect(ofType(events, 'text-start').map((event) => event.id)).toEqual(['text-0']);
    expect(new Set([...ofType(events, 'text-delta'), ...ofType(events, 'text-end')].map((event) => event.id))).toEqual(new Set(['text-0']));
    expect(ofType(events, 'continuation-start')).toEqual([{ type: 'continuation-start', continuationId: expect.any(String), to: { upstream: 'primary', model: 'primary-model', protocol: 'chat' }, reason: 'cut' }]);
    expect(ofType(events, 'finish')).toHaveLength(1);
    const result = await run.result;
    expect(result).toMatchObject({ outcome: 'ok', continued: true, model: 'primary-model' });
    expect(samples.map((sample) => [sample.ok, sample.continuation, sample.attempt, sample.recoveryAttempt])).toEqual([
      [false, undefined, 0, false],
      [true, true, 1, false],
    ]);
  });

  it('the whitespace the prefill left out is not doubled: the host has it, the model writes its own', async () => {
    const { run } = setup({ [PRIMARY]: [cutMidAnswer, { lines: [{ t: ' fox' }, { t: ' jumps.' }, { end: 'stop' }] }] });
    expect(textOf(await collectTurnEvents(run))).toBe('The quick brown fox jumps.');
  });

  it.each([
    ['a stall', { lines: [{ t: 'The quick brown' }], then: 'hang' } as ChainReply, 'stall'],
    ['a malformed event', { lines: [{ t: 'The quick brown' }, { garbage: true }, { t: 'never read' }] } as ChainReply, 'malformed'],
  ])('after %s too', async (_name, fault, reason) => {
    vi.useFakeTimers();
    const { run, wire } = setup({ [PRIMARY]: [fault, rest] }, { timeLimits: { stallAfterOutputMs: 1000 } });
    const done = collectTurnEvents(run);
    await vi.advanceTimersByTimeAsync(1100);
    const events = await done;
    expect(wire.requests).toHaveLength(2);
    expect(ofType(events, 'continuation-start')[0]?.reason).toBe(reason);
    expect(textOf(events)).toBe('The quick brownfox jumps.');
  });

  it('a refused prefill ends with the original cut error, never the prefill 400', async () => {
    const refusal: ChainReply = { status: 400, body: 'This model does not support assistant message prefill. The conversation must end with a user message.' };
    const { run, wire } = setup({ [PRIMARY]: [cutMidAnswer, refusal] });
    const events = await collectTurnEvents(run);
    expect(wire.requests).toHaveLength(2);
    const errors = ofType(events, 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.error).toMatchObject({ code: 'STREAM_CUT', retryable: false });
    expect(errors[0]?.error.message).not.toContain('prefill');
  });

  it('at most one per turn: a continuation cut again ends the turn', async () => {
    const { run, wire } = setup({ [PRIMARY]: [cutMidAnswer, { lines: [{ t: 'fox' }], then: 'reset' }, rest] });
    const events = await collectTurnEvents(run);
    expect(wire.requests).toHaveLength(2);
    expect(ofType(events, 'error')[0]?.error.code).toBe('STREAM_CUT');
    expect(textOf(events)).toBe('The quick brown fox');
  });

  it('goes to the next entry that takes a prefill when the cut one does not; the prefix dialect marks the message', async () => {
    const { run, wire, samples } = setup(
      { [PRIMARY]: [cutMidAnswer], [SECOND]: [rest] },
      { prefill: undefined, fallbacks: [fallbackTo(SECOND, 'deepseek-chat', { prefill: 'prefix-flag' })] },
    );
    const events = await collectTurnEvents(run);
    expect(lastMessage(wire.to(SECOND)[0]!.body)).toMatchObject({ role: 'assistant', providerFields: { prefix: true } });
    expect(textOf(events)).toBe('The quick brown fox jumps.');
    expect(samples.at(-1)).toMatchObject({ model: 'deepseek-chat', fallbackFrom: 'primary-model', continuation: true });
    expect((await run.result).model).toBe('deepseek-chat');
  });

  it('to another family: tools are off in a continuation, so the provider\'s own tools (web search) do not block it', async () => {
    const request = chainRequest({ tools: [{ type: 'function', function: { name: 'lookup' } }, { type: 'web_search' }] });
    const { run, wire } = setup(
      { [PRIMARY]: [cutMidAnswer], [SECOND]: [rest] },
      { request, prefill: undefined, fallbacks: [fallbackTo(SECOND, 'claude-x', { protocol: 'messages', prefill: 'messages' })] },
    );
    const events = await collectTurnEvents(run);
    expect(textOf(events)).toBe('The quick brown fox jumps.');
    const sent = wire.to(SECOND)[0]!.body as ChainNative & { tools?: Array<{ type?: string }> };
    expect(JSON.stringify(sent)).not.toContain('web_search');
  });

  it('no destination takes a prefill: no request, the cut as it is', async () => {
    const { run, wire } = setup({ [PRIMARY]: [cutMidAnswer] }, { prefill: undefined, fallbacks: [] });
    const events = await collectTurnEvents(run);
    expect(wire.requests).toHaveLength(1);
    expect(ofType(events, 'error')[0]?.error.code).toBe('STREAM_CUT');
  });

  it('off by default: a cut after text is STREAM_CUT (R4.2 holds)', async () => {
    const { run, wire } = setup({ [PRIMARY]: [cutMidAnswer, rest] }, { continuation: undefined, fallbacks: [] });
    await collectTurnEvents(run);
    expect(wire.requests).toHaveLength(1);
    expect((await run.result).error?.code).toBe('STREAM_CUT');
  });

  it('never after a tool call started', async () => {
    const { run, wire } = setup({ [PRIMARY]: [{ lines: [{ t: 'Let me look.' }, { tool: 'lookup' }], then: 'reset' }, rest] });
    await collectTurnEvents(run);
    expect(wire.requests).toHaveLength(1);
  });
});
