import type { DecodedStreamEvent, Protocol } from '@turnguard/core';
import { collectEvents, streamOfText } from '@turnguard/testkit';
import { describe, expect, it } from 'vitest';
import { selectAdapter } from '../protocol-routes.js';
import { createRecordJudge, type RecordVerdict } from './judge-sse-records.js';

/** Each record of `text` as the protocol's decoder reads it, with the judge's verdict (R8.13). */
async function verdicts(protocol: Protocol, text: string, clientWantsUsage = true): Promise<Array<[string, RecordVerdict]>> {
  const judge = createRecordJudge(protocol, clientWantsUsage);
  const seen: Array<[string, RecordVerdict]> = [];
  await collectEvents<DecodedStreamEvent>(selectAdapter(protocol).decodeStream(streamOfText(text), { records: { onRecord: (record) => seen.push([record.event ?? record.data.slice(0, 12), judge.judge(record)]) } }));
  return seen;
}

const sse = (event: string, fields: Record<string, unknown>): string => `event: ${event}\ndata: ${JSON.stringify({ type: event, ...fields })}\n\n`;

describe('judging records by their events (R8.13)', () => {
  it('Messages: a repeated message_start, block start or stop, and a delta for no open block are left out', async () => {
    const start = sse('message_start', { message: { id: 'msg_1', model: 'm', usage: { input_tokens: 1 } } });
    const text =
      start +
      sse('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) +
      sse('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) +
      start +
      sse('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Hi' } }) +
      sse('content_block_stop', { index: 0 }) +
      sse('content_block_stop', { index: 0 }) +
      sse('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'stray' } }) +
      sse('content_block_start', { index: 1, content_block: { type: 'server_tool_use', id: 's', name: 'web_search', input: {} } }) +
      sse('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: '{}' } }) +
      sse('content_block_stop', { index: 1 }) +
      sse('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } }) +
      sse('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 3 } }) +
      sse('message_stop', {}) +
      sse('message_stop', {});
    expect(await verdicts('messages', text)).toEqual([
      ['message_start', 'relay'],
      ['content_block_start', 'relay'],
      ['content_block_start', 'omit'],
      ['message_start', 'omit'],
      ['content_block_delta', 'relay'],
      ['content_block_stop', 'relay'],
      ['content_block_stop', 'omit'],
      ['content_block_delta', 'omit'],
      // A block the decoder does not model (a server tool) is the upstream's to relay.
      ['content_block_start', 'relay'],
      ['content_block_delta', 'relay'],
      ['content_block_stop', 'relay'],
      ['message_delta', 'relay'],
      ['message_delta', 'after-end'],
      ['message_stop', 'relay'],
      ['message_stop', 'after-end'],
    ]);
  });

  it('Responses: a repeated response.created, an item added again or done twice are left out; [DONE] before the end too', async () => {
    const text =
      sse('response.created', { sequence_number: 0, response: { id: 'r', model: 'm' } }) +
      sse('response.created', { sequence_number: 0, response: { id: 'r', model: 'm' } }) +
      sse('response.output_item.added', { sequence_number: 1, output_index: 0, item: { id: 'rs', type: 'reasoning', summary: [] } }) +
      sse('response.output_item.added', { sequence_number: 1, output_index: 0, item: { id: 'rs', type: 'reasoning', summary: [] } }) +
      'data: [DONE]\n\n' +
      sse('response.output_item.done', { sequence_number: 2, output_index: 0, item: { id: 'rs', type: 'reasoning', summary: [] } }) +
      sse('response.output_item.done', { sequence_number: 2, output_index: 0, item: { id: 'rs', type: 'reasoning', summary: [] } }) +
      sse('response.completed', { sequence_number: 3, response: { id: 'r', status: 'completed', output: [] } }) +
      sse('response.completed', { sequence_number: 3, response: { id: 'r', status: 'completed', output: [] } });
    expect((await verdicts('responses', text)).map(([, verdict]) => verdict)).toEqual(['relay', 'omit', 'relay', 'omit', 'omit', 'relay', 'omit', 'relay', 'after-end']);
  });

  it('Chat: an in-stream error stops the body; after the finish only the usage chunk (if asked) and one [DONE]', async () => {
    const chunk = (fields: Record<string, unknown>): string => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', ...fields })}\n\n`;
    const finish = chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
    const usage = chunk({ choices: [], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } });
    const text = chunk({ choices: [{ index: 0, delta: { content: 'a' } }] }) + finish + usage + usage + 'data: [DONE]\n\n' + 'data: [DONE]\n\n';
    expect((await verdicts('chat', text, false)).map(([, verdict]) => verdict)).toEqual(['relay', 'relay', 'omit', 'after-end', 'relay', 'after-end']);
    const failing = chunk({ choices: [{ index: 0, delta: { content: 'a' } }] }) + 'data: {"error":{"message":"x"}}\n\n' + chunk({ choices: [{ index: 0, delta: { content: 'b' } }] });
    expect((await verdicts('chat', failing)).map(([, verdict]) => verdict)).toEqual(['relay', 'error', 'omit']);
  });
});
