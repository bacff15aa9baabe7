import { describe, expect, it } from 'vitest';
import { CircuitBreakers } from '../failover/circuit-breaker.js';
import type { TurnEvent } from '../types/turn-event.js';
import { collectTurnEvents } from './fake-wire.test-helper.js';
import { PRIMARY, SECOND, type ChainNative, type ChainReply } from './fake-chain-wire.test-helper.js';
import type { RunTurnOptions } from './run-turn.js';
import { FAST_BUDGET as FAST, startChainTurn } from './chain-turn.test-helper.js';

/** A chained turn whose host holds the output until the end (the gateway's JSON answer, decision 0430). */
function setup(script: Record<string, ChainReply[]>, options: Partial<RunTurnOptions<ChainNative>> = {}) {
  return startChainTurn(script, { outputHeldUntilEnd: true, ...options });
}

/**
 * What a holding host (the gateway's JSON answer) keeps: text and tool calls,
 * everything dropped on a `tombstone` (R3.8).
 */
function heldAnswer(events: TurnEvent[]): { text: string; toolCalls: { toolCallId: string; toolName: string; input: string; ended: boolean }[] } {
  let text = '';
  let toolCalls: { toolCallId: string; toolName: string; input: string; ended: boolean }[] = [];
  for (const event of events) {
    if (event.type === 'tombstone') {
      text = '';
      toolCalls = [];
    } else if (event.type === 'text-delta') text += event.delta;
    else if (event.type === 'tool-call-start') toolCalls.push({ toolCallId: event.toolCallId, toolName: event.toolName, input: '', ended: false });
    else if (event.type === 'tool-call-delta') toolCalls.find((call) => call.toolCallId === event.toolCallId)!.input += event.delta;
    else if (event.type === 'tool-call-end') {
      const call = toolCalls.find((each) => each.toolCallId === event.toolCallId);
      if (call === undefined) toolCalls.push({ toolCallId: event.toolCallId, toolName: event.toolName, input: event.input, ended: true });
      else Object.assign(call, { input: event.input, ended: true });
    }
  }
  return { text, toolCalls };
}

const ok = (text = 'Fallback answer.'): ChainReply => ({ lines: [{ t: text }, { u: { in: 9, out: 3 } }, { end: 'stop' }] });
const cutAfterText: ChainReply = { lines: [{ u: { in: 100, out: 1 } }, { t: 'Half an ans' }], then: 'reset' };
const types = (events: TurnEvent[]): string[] => events.map((event) => event.type);

describe('outputHeldUntilEnd: a host that shows nothing until the end (R11.2, R4, decision 0430)', () => {
  it('a cut after text fails over at once; the host is told to drop the cut attempt before the fallback answers', async () => {
    const { run, wire, samples, turns } = setup({ [PRIMARY]: [cutAfterText], [SECOND]: [ok()] });
    const events = await collectTurnEvents(run);
    const result = await run.result;
    expect([wire.to(PRIMARY).length, wire.to(SECOND).length]).toEqual([1, 1]);
    expect(heldAnswer(events).text).toBe('Fallback answer.');
    const order = types(events);
    expect(events.filter((event) => event.type === 'tombstone')).toEqual([{ type: 'tombstone', messageId: 'req-1' }]);
    // One tombstone, after the dropped text and before the fallback's notice and text.
    expect(order.indexOf('tombstone')).toBeGreaterThan(order.indexOf('text-delta'));
    expect(order.indexOf('tombstone')).toBeLessThan(order.indexOf('fallback'));
    expect(events.find((event) => event.type === 'fallback')).toMatchObject({ reason: 'cut' });
    expect(result).toMatchObject({ outcome: 'ok', model: 'second-model', fallbacks: 1 });
    expect(result.usage).toMatchObject({ inputTokens: 9, outputTokens: 3 });
    // R6.1: each physical request one sample; the dropped one keeps its own usage.
    expect(samples.map((sample) => [sample.model, sample.ok, sample.usage.inputTokens])).toEqual([
      ['primary-model', false, 100],
      ['second-model', true, 9],
    ]);
    expect(turns).toEqual([expect.objectContaining({ physicalRequests: 2, fallbacks: 1, outcome: 'ok' })]);
  });

  it('without a fallback: restarted on the same target within the budget; the dropped attempts\' usage is never the answer\'s (R5)', async () => {
    const { run, wire, samples } = setup({ [PRIMARY]: [cutAfterText, cutAfterText, ok('Whole answer.')] }, { fallbacks: [] });
    const events = await collectTurnEvents(run);
    const result = await run.result;
    expect(wire.to(PRIMARY)).toHaveLength(3);
    expect(heldAnswer(events).text).toBe('Whole answer.');
    expect(events.filter((event) => event.type === 'tombstone').map((event) => event.type === 'tombstone' && event.messageId)).toEqual(['req-1', 'req-2']);
    // Each tombstone comes before its retry's notice.
    expect(types(events).filter((type) => type === 'tombstone' || type === 'retry')).toEqual(['tombstone', 'retry', 'tombstone', 'retry']);
    expect(result.outcome).toBe('ok');
    expect(result.usage).toMatchObject({ inputTokens: 9, outputTokens: 3 });
    expect(samples.map((sample) => sample.usage.inputTokens)).toEqual([100, 100, 9]);
  });

  it('without a fallback, every attempt cut: the budget\'s attempts, then the upstream\'s failure (nothing was shown)', async () => {
    const { run, wire } = setup({ [PRIMARY]: Array.from({ length: 6 }, () => cutAfterText) }, { fallbacks: [] });
    const events = await collectTurnEvents(run);
    expect(wire.to(PRIMARY)).toHaveLength(FAST.maxAttemptsPerTarget);
    expect(heldAnswer(events).text).toBe('');
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { kind: 'transport' } });
    expect((await run.result).outcome).toBe('error');
  });

  it('a tool call cut half-way restarts cleanly: exactly one whole tool call, never a partial or a duplicate (R11.2)', async () => {
    const { run, wire } = setup({
      [PRIMARY]: [{ lines: [{ t: 'Let me look.' }, { toolStart: 'lookup', args: '{"q":"ha' }], then: 'reset' }],
      [SECOND]: [{ lines: [{ t: 'Let me look.' }, { tool: 'lookup' }, { end: 'tool-calls' }] }],
    });
    const events = await collectTurnEvents(run);
    expect([wire.to(PRIMARY).length, wire.to(SECOND).length]).toEqual([1, 1]);
    const held = heldAnswer(events);
    expect(held.text).toBe('Let me look.');
    expect(held.toolCalls).toEqual([{ toolCallId: 'call_0', toolName: 'lookup', input: '{}', ended: true }]);
    expect((await run.result).outcome).toBe('ok');
  });

  it('a stall after output (a short limit) fails over at once', async () => {
    const { run, wire } = setup({ [PRIMARY]: [{ lines: [{ t: 'Half' }], then: 'hang' }], [SECOND]: [ok()] }, { timeLimits: { stallAfterOutputMs: 30 } });
    const events = await collectTurnEvents(run);
    expect([wire.to(PRIMARY).length, wire.to(SECOND).length]).toEqual([1, 1]);
    expect(heldAnswer(events).text).toBe('Fallback answer.');
    expect(events.find((event) => event.type === 'fallback')).toMatchObject({ reason: 'stall', errorCode: 'STREAM_STALL' });
  });

  it('a malformed record after output fails over at once', async () => {
    const { run, wire } = setup({ [PRIMARY]: [{ lines: [{ t: 'Half' }, { garbage: true }, { t: 'never' }, { end: 'stop' }] }], [SECOND]: [ok()] });
    const events = await collectTurnEvents(run);
    expect([wire.to(PRIMARY).length, wire.to(SECOND).length]).toEqual([1, 1]);
    expect(heldAnswer(events).text).toBe('Fallback answer.');
    expect(events.find((event) => event.type === 'fallback')).toMatchObject({ reason: 'malformed' });
  });

  it('a malformed record after output, no fallback: restarted on the same target', async () => {
    const { run, wire } = setup({ [PRIMARY]: [{ lines: [{ t: 'Half' }, { garbage: true }] }, ok('Same model.')] }, { fallbacks: [] });
    const events = await collectTurnEvents(run);
    expect(wire.to(PRIMARY)).toHaveLength(2);
    expect(heldAnswer(events).text).toBe('Same model.');
    expect(types(events).filter((type) => type === 'tombstone' || type === 'retry')).toEqual(['tombstone', 'retry']);
  });

  it('with continuation on but no target that takes a prefill: the cut answer is restarted, never ended as a cut (R11.6, R11.2)', async () => {
    const { run, wire } = setup({ [PRIMARY]: [cutAfterText, ok('Whole answer.')] }, { fallbacks: [], continuation: 'prefill' });
    const events = await collectTurnEvents(run);
    expect(wire.to(PRIMARY)).toHaveLength(2);
    expect(wire.requests[1]!.body.messages.at(-1)).toMatchObject({ role: 'user' });
    expect(heldAnswer(events).text).toBe('Whole answer.');
    expect(types(events)).not.toContain('continuation-start');
    expect(types(events).filter((type) => type === 'tombstone' || type === 'retry')).toEqual(['tombstone', 'retry']);
    expect((await run.result).outcome).toBe('ok');
  });

  it('with continuation on and a target that takes a prefill: the answer is continued, nothing dropped (R11.6)', async () => {
    const { run, wire } = setup({ [PRIMARY]: [cutAfterText, ok('wer.')] }, { fallbacks: [], continuation: 'prefill', prefill: 'trailing-message' });
    const events = await collectTurnEvents(run);
    expect(wire.to(PRIMARY)).toHaveLength(2);
    expect(wire.requests[1]!.body.messages.at(-1)).toMatchObject({ role: 'assistant' });
    expect(types(events)).toContain('continuation-start');
    expect(types(events)).not.toContain('tombstone');
    expect(heldAnswer(events).text).toBe('Half an answer.');
    expect((await run.result).outcome).toBe('ok');
  });

  it('a continuation that fails is dropped with the cut answer, which is then restarted: never a cut for a host that saw nothing (R11.6, R11.2)', async () => {
    const refusal: ChainReply = { status: 400, body: 'This model does not support assistant message prefill. The conversation must end with a user message.' };
    const { run, wire, samples } = setup({ [PRIMARY]: [cutAfterText, refusal, ok('Whole answer.')] }, { fallbacks: [], continuation: 'prefill', prefill: 'trailing-message' });
    const events = await collectTurnEvents(run);
    const result = await run.result;
    expect(wire.requests.map((request) => request.body.messages.at(-1)?.role)).toEqual(['user', 'assistant', 'user']);
    expect(heldAnswer(events).text).toBe('Whole answer.');
    const order = types(events);
    expect(order.filter((type) => type === 'continuation-start' || type === 'tombstone' || type === 'retry')).toEqual(['continuation-start', 'tombstone', 'retry']);
    expect(result).toMatchObject({ outcome: 'ok', continued: true });
    // R5: the answer's usage is the restart's alone; R6.1: three physical requests, three samples.
    expect(result.usage).toMatchObject({ inputTokens: 9, outputTokens: 3 });
    expect(samples.map((sample) => [sample.ok, sample.continuation])).toEqual([
      [false, undefined],
      [false, true],
      [true, undefined],
    ]);
  });

  it('a continuation its target\'s circuit refuses is spent like a failed one: the turn ends, never asks again', { timeout: 5_000 }, async () => {
    // The cut opens the only target's circuit (threshold 1): the continuation cannot be admitted, nor a restart.
    const circuitBreakers = new CircuitBreakers({ failureThreshold: 1, coolDownMs: 60_000 });
    const { run, wire } = setup({ [PRIMARY]: [cutAfterText, ok('never sent')] }, { fallbacks: [], continuation: 'prefill', prefill: 'trailing-message', circuitBreakers });
    const events = await collectTurnEvents(run);
    expect(wire.to(PRIMARY)).toHaveLength(1);
    expect(types(events)).not.toContain('continuation-start');
    expect(types(events).filter((type) => type === 'tombstone')).toHaveLength(1);
    expect(heldAnswer(events).text).toBe('');
    expect((await run.result).outcome).toBe('error');
  });

  it('off (the default), the same cut ends the turn as STREAM_CUT with nothing dropped (R4.2)', async () => {
    const { run, wire } = setup({ [PRIMARY]: [cutAfterText], [SECOND]: [ok()] }, { outputHeldUntilEnd: false });
    const events = await collectTurnEvents(run);
    expect(wire.to(SECOND)).toHaveLength(0);
    expect(events.some((event) => event.type === 'tombstone')).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { code: 'STREAM_CUT' } });
  });

  it('a value other than a boolean is refused at call time', () => {
    expect(() => setup({}, { outputHeldUntilEnd: 'yes' as never })).toThrow(/outputHeldUntilEnd must be true or false/);
  });
});
