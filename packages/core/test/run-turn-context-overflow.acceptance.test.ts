import { describe, expect, it } from 'vitest';
import type { FetchFunction } from '../src/index.js';
import { startTurn } from './turn-harness.js';

const event = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
const ANSWER = [
  event('message_start', { message: { id: 'msg_1', model: 'm', usage: { input_tokens: 10 } } }),
  event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
  event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Done.' } }),
  event('content_block_stop', { index: 0 }),
  event('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 2 } }),
  event('message_stop', {}),
].join('');
const OVERFLOW = JSON.stringify({
  type: 'error',
  error: { type: 'invalid_request_error', message: 'input length and `max_tokens` exceed context limit: 190000 + 32000 > 200000, decrease input length or `max_tokens` and try again' },
});

describe('R1.8 through runTurn on Messages: the resize keeps the request\'s own thinking budget valid', () => {
  it('retries with max_tokens = thinking budget + 1 when that is the largest floor', async () => {
    const bodies: Array<Record<string, unknown>> = [];
    const fetch: FetchFunction = async (_url, init) => {
      bodies.push(JSON.parse(String(init.body)) as Record<string, unknown>);
      return bodies.length === 1
        ? new Response(OVERFLOW, { status: 400, headers: { 'content-type': 'application/json' } })
        : new Response(ANSWER, { status: 200, headers: { 'content-type': 'text/event-stream' } });
    };
    const { run } = startTurn('messages', {
      fetch,
      settings: { maxOutputTokens: 32000, providerFields: { thinking: { type: 'enabled', budget_tokens: 16000 } } },
    });
    for await (const _ of run) void _;
    const result = await run.result;
    expect(result.error).toBeUndefined();
    expect(bodies.map((body) => [body['max_tokens'], (body['thinking'] as { budget_tokens?: number } | undefined)?.budget_tokens])).toEqual([
      [32000, 16000],
      // max(3000, 200000 - 190000 - 1000, 16000 + 1): Anthropic needs max_tokens > budget_tokens.
      [16001, 16000],
    ]);
  });
});
