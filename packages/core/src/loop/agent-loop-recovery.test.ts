import { describe, expect, it, vi } from 'vitest';
import { TurnError } from '../errors/turn-error.js';
import { FallbackSignal } from '../retry/fallback-signal.js';
import type { Message } from '../types/message.js';
import {
  collectLoopEvents,
  reasoning,
  startFakeLoop,
  text,
  toolCall,
} from './fake-sampler.test-helper.js';
import { FALLBACK_TOOL_RESULT, STRIPPED_IMAGE_TEXT } from './loop-messages.js';

const ptl = () => new TurnError({ kind: 'prompt_too_long', message: 'prompt is too long: 210000 tokens > 200000 maximum', status: 400 });
const media = () => new TurnError({ kind: 'media_too_large', message: 'image exceeds 5 MB maximum', status: 400 });
const short: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'summary' }] }];
const reasons = (transitions: { reason: string }[]) => transitions.map((transition) => transition.reason);
const errorEvents = (events: { type: string }[]) => events.filter((event) => event.type === 'error');

describe('runAgentLoop — prompt too long (R3.2, R3.6)', () => {
  it('withholds the error and recovers with the collapse drain', async () => {
    const collapse = vi.fn(async () => short);
    const { run, sampler } = startFakeLoop([{ events: [], end: ptl() }, { events: text('a', 'ok'), end: 'stop' }], { hooks: { collapse } });
    const events = await collectLoopEvents(run);
    const result = await run.result;
    expect(errorEvents(events)).toEqual([]);
    expect(reasons(result.transitions)).toEqual(['collapse_drain_retry']);
    expect(sampler.requests[1]!.prompt.messages).toEqual(short);
    expect(result.terminal.reason).toBe('completed');
  });

  it('skips a drain right after a drain and goes on to compact, once per turn', async () => {
    const collapse = vi.fn(async () => short);
    const compact = vi.fn(async (_context: { cause: string }) => short);
    const { run } = startFakeLoop(
      [{ events: [], end: ptl() }, { events: [], end: ptl() }, { events: text('a', 'ok'), end: 'stop' }],
      { hooks: { collapse, compact } },
    );
    const result = await run.result;
    expect(reasons(result.transitions)).toEqual(['collapse_drain_retry', 'reactive_compact_retry']);
    expect([collapse.mock.calls.length, compact.mock.calls.length]).toEqual([1, 1]);
    expect(compact.mock.calls[0]![0]).toMatchObject({ cause: 'prompt_too_long' });
  });

  it('fails to prompt_too_long, shows the error once, and runs no stop hook', async () => {
    const onStop = vi.fn(async () => undefined);
    const compact = vi.fn(async () => short);
    const { run, sampler } = startFakeLoop(
      [{ events: [], end: ptl() }, { events: [], end: ptl() }, { events: [], end: ptl() }],
      { hooks: { collapse: async () => short, compact, onStop } },
    );
    const events = await collectLoopEvents(run);
    const result = await run.result;
    expect(sampler.requests).toHaveLength(3);
    expect(result.terminal.reason).toBe('prompt_too_long');
    expect(errorEvents(events)).toHaveLength(1);
    const lastSampleStart = events.map((event) => event.type).lastIndexOf('sample-start');
    expect(events.findIndex((event) => event.type === 'error')).toBeGreaterThan(lastSampleStart);
    expect(result.messages.at(-1)).toMatchObject({ isApiErrorMessage: true, apiError: { kind: 'prompt_too_long' } });
    expect(onStop).not.toHaveBeenCalled();
  });

  it('with no hooks ends with prompt_too_long at once', async () => {
    const { run, sampler } = startFakeLoop([{ events: [], end: ptl() }]);
    expect((await run.result).terminal.reason).toBe('prompt_too_long');
    expect(sampler.requests).toHaveLength(1);
  });

  it('media too large: skips the drain, compacts with images stripped, and ends with image_error when that fails', async () => {
    const collapse = vi.fn(async () => short);
    const compact = vi.fn(async ({ messages }: { messages: readonly Message[] }) => [...messages]);
    const prompt = { messages: [{ role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AAAA' } }] }] } as { messages: Message[] };
    const { run, sampler } = startFakeLoop([{ events: [], end: media() }, { events: [], end: media() }], { prompt, hooks: { collapse, compact } });
    const result = await run.result;
    expect(collapse).not.toHaveBeenCalled();
    expect(sampler.requests[1]!.prompt.messages[0]!.content).toEqual([
      { type: 'text', text: 'look' },
      { type: 'text', text: STRIPPED_IMAGE_TEXT },
    ]);
    expect(reasons(result.transitions)).toEqual(['reactive_compact_retry']);
    expect(result.terminal.reason).toBe('image_error');
  });
});

describe('runAgentLoop — model fallback and tombstones (R3.8, R3.9)', () => {
  const signal = () => new FallbackSignal({ fallbackModel: 'model-b', consecutiveOverloads: 3, lastError: new TurnError({ kind: 'overloaded', message: 'Overloaded', status: 529 }) });

  it('switches model, strips signatures, tombstones the abandoned attempt, closes its tool uses and warns', async () => {
    const prompt = {
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'go' }] },
        { role: 'assistant', content: [{ type: 'reasoning', text: 'prior', signature: 'sig-a' }, { type: 'tool-call', toolCallId: 'c0', toolName: 'read', input: '{}' }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c0', output: 'x' }] },
      ],
    } as { messages: Message[] };
    const { run, sampler } = startFakeLoop(
      [{ events: [...reasoning('r', 'hmm', 'sig-a2'), ...toolCall('c1', 'read', '{}')], end: signal() }, { events: text('a', 'ok'), end: 'stop' }],
      { prompt, hooks: { fallbackModel: 'model-b' } },
    );
    const events = await collectLoopEvents(run);
    const result = await run.result;
    expect(sampler.retries.map((retry) => retry.fallbackModel)).toEqual(['model-b', undefined]);
    expect(sampler.requests.map((request) => request.settings.model)).toEqual(['model-a', 'model-b']);
    expect(events).toContainEqual({ type: 'warning', message: 'Switched to model-b due to high demand for model-a' });
    expect(events).toContainEqual({ type: 'tombstone', messageId: 'id-1' });
    expect(events).toContainEqual({ type: 'tool-result', result: { type: 'tool-result', toolCallId: 'c1', toolName: 'read', output: FALLBACK_TOOL_RESULT, isError: true } });
    expect(errorEvents(events)).toEqual([]);
    const sent = sampler.requests[1]!.prompt.messages;
    expect(sent[1]!.content).toEqual([{ type: 'tool-call', toolCallId: 'c0', toolName: 'read', input: '{}' }]);
    expect(JSON.stringify(sent)).not.toContain('c1');
    expect(reasons(result.transitions)).toEqual(['model_fallback']);
    expect([result.model, result.terminal.reason]).toEqual(['model-b', 'completed']);
  });

  it('without a fallback model the overload is a model_error', async () => {
    const { run } = startFakeLoop([{ events: [], end: new TurnError({ kind: 'overloaded', message: 'Overloaded', status: 529 }) }]);
    expect((await run.result).terminal.reason).toBe('model_error');
  });
});

describe('runAgentLoop — interrupts (R3.10)', () => {
  it('abort while streaming: interrupted results for the started tool use, an interruption message, no further request', async () => {
    const controller = new AbortController();
    const { run, sampler } = startFakeLoop(
      [{ events: [...text('a', 'let me'), { type: 'tool-call-start', toolCallId: 'c1', toolName: 'read' }, { type: 'tool-call-delta', toolCallId: 'c1', delta: '{"pa' }, ...text('b', 'never')], end: 'stop', beforeEvent: { index: 5, run: () => controller.abort() } }],
      { signal: controller.signal },
    );
    const result = await run.result;
    expect(sampler.requests).toHaveLength(1);
    expect(result.terminal.reason).toBe('aborted_streaming');
    expect(result.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(result.messages[2]!.content).toEqual([{ type: 'tool-result', toolCallId: 'c1', toolName: 'read', output: 'Interrupted by user', isError: true }]);
    expect(result.messages[3]!.content).toEqual([{ type: 'text', text: '[Request interrupted by user]' }]);
  });

  it("abort with reason 'interrupt' adds no interruption message", async () => {
    const controller = new AbortController();
    const { run } = startFakeLoop([{ events: text('a', 'x'), end: 'stop', beforeEvent: { index: 2, run: () => controller.abort('interrupt') } }], { signal: controller.signal });
    const result = await run.result;
    expect(result.terminal.reason).toBe('aborted_streaming');
    expect(result.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
  });

  it('abort during tools: the running and remaining tools get interrupted results; aborted_tools; no request after', async () => {
    const controller = new AbortController();
    const { run, sampler } = startFakeLoop(
      [{ events: [...toolCall('c1', 'slow', '{}'), ...toolCall('c2', 'slow', '{}')], end: 'tool-calls' }],
      { signal: controller.signal, toolHandlers: { slow: () => (controller.abort(), new Promise(() => undefined)) } },
    );
    const result = await run.result;
    expect(sampler.requests).toHaveLength(1);
    expect(result.terminal.reason).toBe('aborted_tools');
    expect(result.messages[2]!.content.map((part) => ('output' in part ? part.output : ''))).toEqual(['Interrupted by user', 'Interrupted by user']);
    expect(result.messages[3]!.content).toEqual([{ type: 'text', text: '[Request interrupted by user for tool use]' }]);
  });

  it('an abort before the first request sends nothing', async () => {
    const controller = new AbortController();
    controller.abort();
    const { run, sampler } = startFakeLoop([], { signal: controller.signal });
    expect((await run.result).terminal.reason).toBe('aborted_streaming');
    expect(sampler.requests).toHaveLength(0);
  });

  it('a host that stops iterating aborts the loop, which still ends once with a paired transcript', async () => {
    const { run, sampler } = startFakeLoop([{ events: [...toolCall('c1', 'read', '{}'), ...text('b', 'more')], end: 'tool-calls' }]);
    for await (const event of run) if (event.type === 'tool-call-end') break;
    const result = await run.result;
    expect(sampler.requests).toHaveLength(1);
    expect(result.terminal.reason).toBe('aborted_streaming');
    expect(result.messages[2]!.content[0]).toMatchObject({ toolCallId: 'c1', output: 'Interrupted by user' });
  });
});

describe('runAgentLoop — other terminals and hooks (R3.11)', () => {
  it('maps stream_cut, timeout and other errors, skipping stop hooks', async () => {
    const onStop = vi.fn(async () => undefined);
    const cut = startFakeLoop([{ events: [...text('a', 'half'), ...toolCall('c1', 'read', '{"a"')], end: new TurnError({ kind: 'stream_cut', message: 'cut' }) }], { hooks: { onStop } });
    const cutResult = await cut.run.result;
    expect(cutResult.terminal.reason).toBe('stream_cut');
    expect(cutResult.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    const timeout = startFakeLoop([{ events: [], end: new TurnError({ kind: 'timeout', message: 'late' }) }]);
    expect((await timeout.run.result).terminal.reason).toBe('deadline');
    const server = startFakeLoop([{ events: [], end: new TurnError({ kind: 'server', message: '500', status: 500 }) }]);
    expect((await server.run.result).terminal.reason).toBe('model_error');
    expect(onStop).not.toHaveBeenCalled();
  });

  it('ends with max_turns after the tools of the last allowed turn', async () => {
    const { run, sampler } = startFakeLoop([{ events: toolCall('c1', 'read', '{}'), end: 'tool-calls' }], { maxTurns: 1, toolHandlers: { read: async () => 'x' } });
    const result = await run.result;
    expect([result.terminal.reason, sampler.requests.length, result.messages.at(-1)!.role]).toEqual(['max_turns', 1, 'tool']);
  });

  it('ends with deadline before a request once the deadline passed', async () => {
    let now = 0;
    const { run, sampler } = startFakeLoop([{ events: toolCall('c1', 'read', '{}'), end: 'tool-calls' }], {
      deadlineAt: 100,
      now: () => now,
      toolHandlers: { read: async () => ((now = 200), 'x') },
    });
    expect((await run.result).terminal.reason).toBe('deadline');
    expect(sampler.requests).toHaveLength(1);
  });

  it('runs the stop hook after a normal completion and continues when it asks to', async () => {
    const onStop = vi.fn().mockResolvedValueOnce({ continueWith: [{ role: 'user', content: [{ type: 'text', text: 'tests fail' }] }] }).mockResolvedValueOnce(undefined);
    const { run, sampler } = startFakeLoop([{ events: text('a', 'done'), end: 'stop' }, { events: text('b', 'fixed'), end: 'stop' }], { hooks: { onStop } });
    const result = await run.result;
    expect(reasons(result.transitions)).toEqual(['stop_hook_blocking']);
    expect(sampler.requests[1]!.prompt.messages.at(-1)).toEqual({ role: 'user', content: [{ type: 'text', text: 'tests fail' }] });
    expect(result.terminal).toMatchObject({ reason: 'completed', finishReason: { unified: 'stop' } });
  });

  it('a tool that throws becomes an isError result and the loop goes on (R3.12)', async () => {
    const { run, sampler } = startFakeLoop([{ events: toolCall('c1', 'boom', '{}'), end: 'tool-calls' }, { events: text('a', 'ok'), end: 'stop' }], {
      toolHandlers: { boom: async () => { throw new Error('disk full'); } },
    });
    await run.result;
    expect(sampler.requests[1]!.prompt.messages[2]!.content[0]).toMatchObject({ isError: true, output: 'Error: disk full' });
  });

  it('rejects bad options with a typed error', () => {
    expect(() => startFakeLoop([], { maxTurns: 0 })).toThrow(TurnError);
    expect(() => startFakeLoop([], { escalatedMaxOutputTokens: -1 })).toThrow(/escalatedMaxOutputTokens/);
  });
});
