import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { DebugDump, Message, Protocol } from '../../src/index.js';
import { collect, enqueue, PROTOCOLS, reply, sentBodies, sentConversation, startLoop, startUpstream, textOfEntry, toolIdsSent } from './loop-harness.js';

// The agent loop's recovery mechanisms and retry scenarios (R3, decision 0090), through the real adapters and the testkit upstream.
const { upstream, server } = startUpstream();
afterEach(() => {
  upstream.reset();
  vi.useRealTimers();
});
afterAll(() => server.close());

const reasonsOf = (transitions: { reason: string }[]) => transitions.map((transition) => transition.reason);
const short: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'Summary of the earlier conversation. Write the report.' }] }];

const PROMPT_TOO_LONG: Record<Protocol, { code?: string; message: string }> = {
  chat: { code: 'context_length_exceeded', message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 210000 tokens." },
  messages: { message: 'prompt is too long: 210000 tokens > 200000 maximum' },
  responses: { code: 'context_length_exceeded', message: 'Your input exceeds the context window of this model.' },
};
const promptTooLong = (protocol: Protocol) => reply(protocol).httpError(400, PROMPT_TOO_LONG[protocol]);

describe.each(PROTOCOLS)('agent loop recovery on %s (R3.2, R3.6, R3.7, R3.9, R1)', (protocol) => {
  it('withheld prompt-too-long recovered by collapse', async () => {
    enqueue(upstream, protocol, promptTooLong(protocol), reply(protocol).text('Report.'));
    const run = startLoop(protocol, { hooks: { collapse: async () => short } });
    const events = await collect(run);
    const result = await run.result;
    expect(events.filter((event) => event.type === 'error')).toEqual([]);
    expect(reasonsOf(result.transitions)).toEqual(['collapse_drain_retry']);
    expect(sentConversation(sentBodies(upstream, protocol)[1]!).map(textOfEntry)).toContain(textOfEntry({ content: short[0]!.content }));
    expect(result.terminal.reason).toBe('completed');
  });

  it('withheld prompt-too-long recovered by compact after the drain did not help', async () => {
    const compact = vi.fn(async () => short);
    enqueue(upstream, protocol, promptTooLong(protocol), promptTooLong(protocol), reply(protocol).text('Report.'));
    const run = startLoop(protocol, { hooks: { collapse: async ({ messages }) => messages.slice(1), compact } });
    const events = await collect(run);
    const result = await run.result;
    expect(events.filter((event) => event.type === 'error')).toEqual([]);
    expect(reasonsOf(result.transitions)).toEqual(['collapse_drain_retry', 'reactive_compact_retry']);
    expect(compact).toHaveBeenCalledTimes(1);
    expect(sentBodies(upstream, protocol)).toHaveLength(3);
  });

  it('prompt-too-long that neither hook fixes ends with prompt_too_long, shown once, with no stop hooks', async () => {
    const onStop = vi.fn(async () => undefined);
    enqueue(upstream, protocol, promptTooLong(protocol), promptTooLong(protocol), promptTooLong(protocol));
    const run = startLoop(protocol, { hooks: { collapse: async () => short, compact: async () => short, onStop } });
    const events = await collect(run);
    const result = await run.result;
    expect(sentBodies(upstream, protocol)).toHaveLength(3);
    const errors = events.filter((event) => event.type === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ error: { kind: 'prompt_too_long' } });
    expect(result.terminal.reason).toBe('prompt_too_long');
    expect(result.messages.at(-1)).toMatchObject({ role: 'assistant', isApiErrorMessage: true });
    expect(onStop).not.toHaveBeenCalled();
    // The pseudo message is never sent back (R3.7).
    expect(events.at(-1)).toMatchObject({ type: 'terminal', terminal: { reason: 'prompt_too_long' } });
  });

  it('429 with Retry-After waits exactly that long (fake timers)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    enqueue(upstream, protocol, reply(protocol).httpError(429, { headers: { 'retry-after': '3' } }), reply(protocol).text('ok'));
    const run = startLoop(protocol, { retry: { random: () => 0 } });
    const done = collect(run);
    await vi.advanceTimersByTimeAsync(2999);
    expect(sentBodies(upstream, protocol)).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    const events = await done;
    expect(sentBodies(upstream, protocol)).toHaveLength(2);
    expect(events.filter((event) => event.type === 'retry')).toEqual([expect.objectContaining({ delayMs: 3000, status: 429 })]);
    expect((await run.result).terminal.reason).toBe('completed');
  });

  it.each([429, 500, 503])('%s without Retry-After backs off 500 ms × 2^(n-1) (fake timers)', async (status) => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    enqueue(upstream, protocol, reply(protocol).httpError(status), reply(protocol).httpError(status), reply(protocol).text('ok'));
    const run = startLoop(protocol, { retry: { random: () => 0, jitterRatio: 0.25 } });
    const done = collect(run);
    await vi.advanceTimersByTimeAsync(1500);
    const events = await done;
    expect(events.filter((event) => event.type === 'retry').map((event) => (event.type === 'retry' ? event.delayMs : 0))).toEqual([500, 1000]);
    expect(sentBodies(upstream, protocol)).toHaveLength(3);
    expect((await run.result).terminal.reason).toBe('completed');
  });

  it('a 400 writes a debug dump of the request actually sent and ends with model_error', async () => {
    const dumps: DebugDump[] = [];
    enqueue(upstream, protocol, reply(protocol).toolCall('read_file', { path: 'a' }, { id: 'call_1' }), reply(protocol).httpError(400, { message: 'Invalid request.' }));
    const run = startLoop(protocol, {
      toolHandlers: { read_file: async () => 'file' },
      retry: { initialDelayMs: 0, debugDump: { describeRequest: () => 'the host request', write: async (dump) => (dumps.push(dump), '/tmp/turnguard/dump.json') } },
    });
    const result = await run.result;
    expect(result.terminal).toMatchObject({ reason: 'model_error', error: { status: 400, details: { debugDumpPath: '/tmp/turnguard/dump.json' } } });
    expect(dumps).toHaveLength(1);
    expect(JSON.stringify(dumps[0]!.request)).toContain('call_1');
  });

  it('falls back after 3 overloads: warning, new model, signatures stripped, pairs intact', async () => {
    const prompt: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'Read a.' }] },
      { role: 'assistant', content: [{ type: 'reasoning', text: 'I should read a', signature: 'sig-model-a' }, { type: 'tool-call', toolCallId: 'call_0', toolName: 'read_file', input: '{"path":"a"}' }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_0', toolName: 'read_file', output: 'contents' }] },
    ];
    // Note: a Responses 529 with the default OpenAI body (`type: server_error`) classifies as `server`, not overloaded (reported).
    const overloaded = () => reply(protocol).httpError(529, { type: 'overloaded_error', message: 'Overloaded' });
    enqueue(upstream, protocol, overloaded(), overloaded(), overloaded(), reply(protocol).text('Done.'));
    const run = startLoop(protocol, { prompt: { messages: prompt }, hooks: { fallbackModel: 'model-b' } });
    const events = await collect(run);
    const result = await run.result;
    const bodies = sentBodies(upstream, protocol);
    expect(bodies.map((body) => body['model'])).toEqual(['model-a', 'model-a', 'model-a', 'model-b']);
    expect(events).toContainEqual({ type: 'warning', message: 'Switched to model-b due to high demand for model-a' });
    expect(events.filter((event) => event.type === 'error')).toEqual([]);
    expect(JSON.stringify(bodies[3])).not.toContain('sig-model-a');
    expect(toolIdsSent(bodies[3]!)).toEqual({ calls: ['call_0'], results: ['call_0'] });
    expect(reasonsOf(result.transitions)).toEqual(['model_fallback']);
    expect([result.model, result.terminal.reason]).toEqual(['model-b', 'completed']);
  });

  it('pairing repair after an abort mid tool call: the next loop sends the interrupted result', async () => {
    const controller = new AbortController();
    enqueue(upstream, protocol, reply(protocol).text('Reading.').toolCall('read_file', { path: 'a-long-path-name.txt' }, { id: 'call_cut' }).delay(1));
    const first = startLoop(protocol, { signal: controller.signal });
    for await (const event of first) if (event.type === 'tool-call-delta' || event.type === 'tool-call-start') controller.abort();
    const aborted = await first.result;
    expect(aborted.terminal.reason).toBe('aborted_streaming');
    expect(sentBodies(upstream, protocol)).toHaveLength(1);

    enqueue(upstream, protocol, reply(protocol).text('Resumed.'));
    const next = startLoop(protocol, { prompt: { messages: [...aborted.messages, { role: 'user', content: [{ type: 'text', text: 'go on' }] }] } });
    expect((await next.result).terminal.reason).toBe('completed');
    const sent = sentBodies(upstream, protocol)[1]!;
    expect(toolIdsSent(sent)).toEqual({ calls: ['call_cut'], results: ['call_cut'] });
    expect(JSON.stringify(sent)).toContain('Interrupted by user');
  });

  it('abort during tools ends with aborted_tools and sends nothing more', async () => {
    const controller = new AbortController();
    enqueue(upstream, protocol, reply(protocol).toolCall('read_file', { path: 'a' }, { id: 'call_1' }), reply(protocol).text('never'));
    const run = startLoop(protocol, { signal: controller.signal, toolHandlers: { read_file: () => (controller.abort(), new Promise(() => undefined)) } });
    const result = await run.result;
    expect(result.terminal.reason).toBe('aborted_tools');
    expect(sentBodies(upstream, protocol)).toHaveLength(1);
    expect(result.messages.at(-1)).toEqual({ role: 'user', content: [{ type: 'text', text: '[Request interrupted by user for tool use]' }] });
  });

  it('reaches stream_cut, max_turns and deadline', async () => {
    enqueue(upstream, protocol, reply(protocol).text('partial answer that gets cut').eof());
    expect((await startLoop(protocol, { streamRecovery: false }).result).terminal.reason).toBe('stream_cut');

    enqueue(upstream, protocol, reply(protocol).toolCall('read_file', { path: 'a' }, { id: 'call_1' }));
    expect((await startLoop(protocol, { maxTurns: 1, toolHandlers: { read_file: async () => 'x' } }).result).terminal.reason).toBe('max_turns');

    let now = 1_000;
    enqueue(upstream, protocol, reply(protocol).toolCall('read_file', { path: 'a' }, { id: 'call_2' }));
    const late = startLoop(protocol, { deadlineAt: 2_000, now: () => now, toolHandlers: { read_file: async () => ((now = 3_000), 'x') } });
    expect((await late.result).terminal.reason).toBe('deadline');
  });
});

// Chat classifies OpenAI's `image_too_large` and a 413 as media_too_large too (R3.6).
describe.each(['chat', 'messages', 'responses'] as const)('agent loop media errors on %s (R3.6)', (protocol) => {
  const mediaError = () =>
    protocol === 'messages'
      ? reply(protocol).httpError(400, { message: 'image exceeds 5 MB maximum: 7340032 bytes > 5242880 bytes' })
      : reply(protocol).httpError(400, { code: 'image_too_large', message: 'Image too large.' });
  const withImage = (): Message[] => [
    { role: 'user', content: [{ type: 'text', text: 'Describe it.' }, { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' } }] },
  ];

  it('compacts with images stripped and retries; a second media error ends with image_error', async () => {
    const collapse = vi.fn(async () => short);
    const compact = vi.fn(async ({ messages }: { messages: readonly Message[] }) => [...messages]);
    enqueue(upstream, protocol, mediaError(), mediaError());
    const run = startLoop(protocol, { prompt: { messages: withImage() }, hooks: { collapse, compact } });
    const result = await run.result;
    expect(collapse).not.toHaveBeenCalled();
    const bodies = sentBodies(upstream, protocol);
    expect(JSON.stringify(bodies[0])).toContain('iVBORw0KGgo=');
    expect(JSON.stringify(bodies[1])).not.toContain('iVBORw0KGgo=');
    expect(reasonsOf(result.transitions)).toEqual(['reactive_compact_retry']);
    expect(result.terminal.reason).toBe('image_error');
  });

  it('a 413 takes the same image path: images stripped on the retry', async () => {
    const compact = vi.fn(async ({ messages }: { messages: readonly Message[] }) => [...messages]);
    enqueue(upstream, protocol, reply(protocol).httpError(413, { message: 'Request Entity Too Large' }), reply(protocol).text('It is a tiny PNG.'));
    const result = await startLoop(protocol, { prompt: { messages: withImage() }, hooks: { compact } }).result;
    const bodies = sentBodies(upstream, protocol);
    expect(JSON.stringify(bodies[1])).not.toContain('iVBORw0KGgo=');
    expect(compact).toHaveBeenCalledWith(expect.objectContaining({ cause: 'media_too_large' }));
    expect(result.terminal.reason).toBe('completed');
  });
});

