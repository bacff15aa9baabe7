import { describe, expect, it } from 'vitest';
import type { FetchFunction, TurnEvent } from '../src/index.js';
import { startTurn } from './turn-harness.js';

/**
 * R1.1 + R8.2: an attempt that fails before any content is retried and must
 * leave no trace with the host — not its response id, not its empty items —
 * so a Responses client sees one response: the one that answered.
 */
const event = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
const response = (id: string, status: string) => ({ id, object: 'response', created_at: 1, status, model: 'm', output: [] });

const FAILED_ATTEMPT = [
  event('response.created', { sequence_number: 0, response: response('resp_1', 'in_progress') }),
  event('response.output_item.added', { sequence_number: 1, output_index: 0, item: { id: 'msg_1', type: 'message', role: 'assistant', status: 'in_progress', content: [] } }),
  event('response.content_part.added', { sequence_number: 2, output_index: 0, content_index: 0, item_id: 'msg_1', part: { type: 'output_text', text: '', annotations: [] } }),
  event('error', { sequence_number: 3, code: 'server_error', message: 'The server had an error.', param: null }),
].join('');
const ANSWER = [
  event('response.created', { sequence_number: 0, response: response('resp_2', 'in_progress') }),
  event('response.output_item.added', { sequence_number: 1, output_index: 0, item: { id: 'msg_2', type: 'message', role: 'assistant', status: 'in_progress', content: [] } }),
  event('response.content_part.added', { sequence_number: 2, output_index: 0, content_index: 0, item_id: 'msg_2', part: { type: 'output_text', text: '', annotations: [] } }),
  event('response.output_text.delta', { sequence_number: 3, output_index: 0, content_index: 0, item_id: 'msg_2', delta: 'Answer.' }),
  event('response.output_text.done', { sequence_number: 4, output_index: 0, content_index: 0, item_id: 'msg_2', text: 'Answer.' }),
  event('response.completed', { sequence_number: 5, response: { ...response('resp_2', 'completed'), usage: { input_tokens: 5, output_tokens: 2, total_tokens: 7 } } }),
].join('');

describe('R1.1/R8.2 on responses: a retried attempt leaves no trace with the host', () => {
  it('shows only the answering attempt\'s response id and items', async () => {
    const bodies = [FAILED_ATTEMPT, ANSWER];
    let requests = 0;
    const fetch: FetchFunction = async () =>
      new Response(bodies[requests++], { status: 200, headers: { 'content-type': 'text/event-stream' } });
    const { run } = startTurn('responses', { fetch });
    const events: TurnEvent[] = [];
    for await (const item of run) events.push(item);
    const result = await run.result;
    expect(requests).toBe(2);
    expect(result.error).toBeUndefined();
    expect(events.filter((item) => item.type === 'response-metadata')).toEqual([expect.objectContaining({ responseId: 'resp_2' })]);
    expect(events.filter((item) => item.type === 'text-start')).toHaveLength(1);
    expect(events.filter((item) => item.type === 'retry')).toHaveLength(1);
  });
});
