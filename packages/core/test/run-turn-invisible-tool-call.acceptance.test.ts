import { describe, expect, it } from 'vitest';
import type { FetchFunction, Protocol, TurnEvent } from '../src/index.js';
import { startTurn } from './turn-harness.js';

/**
 * R4.1: no recovery after "even an unfinished" tool call — also one that no
 * event could show: a Chat fragment with arguments but no id or name yet,
 * or an Anthropic server-side tool block the adapter does not model.
 * Raw bytes through the real adapters, one fetch per physical request.
 */
const sse = (lines: string[]): string => lines.join('');
const chatChunk = (delta: object) =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
const event = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

const CUT_AFTER_INVISIBLE_TOOL_CALL: Partial<Record<Protocol, string>> = {
  chat: sse([
    chatChunk({ role: 'assistant', reasoning_content: 'Thinking about which tool to use. '.repeat(20) }),
    chatChunk({ tool_calls: [{ index: 0, function: { arguments: '{"arg":' } }] }),
  ]),
  messages: sse([
    event('message_start', { message: { id: 'msg_1', model: 'm', usage: { input_tokens: 10 } } }),
    event('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '' } }),
    event('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: 'Searching first. '.repeat(20) } }),
    event('content_block_stop', { index: 0 }),
    event('content_block_start', { index: 1, content_block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} } }),
  ]),
};

function recordingFetch(body: string): { fetch: FetchFunction; count: () => number } {
  let requests = 0;
  const fetch: FetchFunction = async () => {
    requests += 1;
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  };
  return { fetch, count: () => requests };
}

describe.each(Object.entries(CUT_AFTER_INVISIBLE_TOOL_CALL))('R4.1 on %s: a cut after an invisible tool call', (protocol, body) => {
  it('is STREAM_CUT with no recovery request', async () => {
    const wire = recordingFetch(body!);
    const { run, turns } = startTurn(protocol as Protocol, { fetch: wire.fetch });
    const events: TurnEvent[] = [];
    for await (const item of run) events.push(item);
    const result = await run.result;
    expect(wire.count()).toBe(1);
    expect(events.some((item) => item.type === 'recovery-start')).toBe(false);
    expect(result.error?.code).toBe('STREAM_CUT');
    expect(turns).toHaveLength(1);
  });
});
