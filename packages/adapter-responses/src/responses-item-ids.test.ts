import { describe, expect, it } from 'vitest';
import type { DecodedStreamEvent } from '@turnguard/core';
import { collectEvents, streamOfChunks } from '@turnguard/testkit';
import { decodeResponsesStream } from './responses-stream-decoder.js';

/**
 * R7.2: items are keyed by `output_index` / `content_index`, so an
 * OpenAI-compatible service that rotates `item_id` on every event, or omits
 * it, neither duplicates nor drops text. Hand-made streams in the event shapes
 * of openai-node's ResponseStreamEvent: a reasoning item at output 0, a message
 * at output 1 with two content parts, a function call at output 2.
 */
const TEXT_0 = 'The answer is forty-two, as computed. ';
const TEXT_1 = 'Second part.';
const REASONING = 'Think briefly.';
const ARGS = '{"path":"a.txt"}';

type IdMode = 'stable' | 'rotating' | 'missing';

function buildStream(mode: IdMode): string {
  let counter = 0;
  const id = (stable: string): Record<string, string> =>
    mode === 'stable' ? { item_id: stable } : mode === 'rotating' ? { item_id: `${stable}_${counter++}` } : {};
  const itemId = (stable: string): Record<string, string> =>
    mode === 'stable' ? { id: stable } : mode === 'rotating' ? { id: `${stable}_${counter++}` } : {};
  const events: Array<Record<string, unknown>> = [
    { type: 'response.created', response: { id: 'resp_1', model: 'm', created_at: 1, status: 'in_progress' } },
    { type: 'response.output_item.added', output_index: 0, item: { type: 'reasoning', ...itemId('rs_1'), summary: [] } },
    { type: 'response.reasoning_summary_text.delta', output_index: 0, summary_index: 0, ...id('rs_1'), delta: REASONING.slice(0, 6) },
    { type: 'response.reasoning_summary_text.delta', output_index: 0, summary_index: 0, ...id('rs_1'), delta: REASONING.slice(6) },
    { type: 'response.output_item.done', output_index: 0, item: { type: 'reasoning', ...itemId('rs_1'), summary: [] } },
    { type: 'response.output_item.added', output_index: 1, item: { type: 'message', ...itemId('msg_1'), role: 'assistant', content: [] } },
    { type: 'response.content_part.added', output_index: 1, content_index: 0, ...id('msg_1'), part: { type: 'output_text', text: '' } },
    { type: 'response.output_text.delta', output_index: 1, content_index: 0, ...id('msg_1'), delta: TEXT_0.slice(0, 10) },
    { type: 'response.output_text.delta', output_index: 1, content_index: 0, ...id('msg_1'), delta: TEXT_0.slice(10) },
    { type: 'response.output_text.done', output_index: 1, content_index: 0, ...id('msg_1'), text: TEXT_0 },
    { type: 'response.content_part.done', output_index: 1, content_index: 0, ...id('msg_1'), part: { type: 'output_text', text: TEXT_0 } },
    { type: 'response.content_part.added', output_index: 1, content_index: 1, ...id('msg_1'), part: { type: 'output_text', text: '' } },
    { type: 'response.output_text.delta', output_index: 1, content_index: 1, ...id('msg_1'), delta: TEXT_1 },
    { type: 'response.output_text.done', output_index: 1, content_index: 1, ...id('msg_1'), text: TEXT_1 },
    { type: 'response.output_item.done', output_index: 1, item: { type: 'message', ...itemId('msg_1'), role: 'assistant', content: [] } },
    { type: 'response.output_item.added', output_index: 2, item: { type: 'function_call', ...itemId('fc_1'), call_id: 'call_1', name: 'read', arguments: '' } },
    { type: 'response.function_call_arguments.delta', output_index: 2, ...id('fc_1'), delta: ARGS.slice(0, 5) },
    { type: 'response.function_call_arguments.delta', output_index: 2, ...id('fc_1'), delta: ARGS.slice(5) },
    { type: 'response.function_call_arguments.done', output_index: 2, ...id('fc_1'), arguments: ARGS },
    { type: 'response.output_item.done', output_index: 2, item: { type: 'function_call', ...itemId('fc_1'), call_id: 'call_1', name: 'read', arguments: ARGS } },
    { type: 'response.completed', response: { id: 'resp_1', model: 'm', created_at: 1, status: 'completed', usage: { input_tokens: 5, output_tokens: 7, total_tokens: 12 } } },
  ];
  return events.map((event, index) => `event: ${String(event.type)}\ndata: ${JSON.stringify({ ...event, sequence_number: index })}\n\n`).join('');
}

function summary(events: DecodedStreamEvent[]) {
  const joinOf = (type: string) => events.map((event) => (event.type === type && 'delta' in event ? event.delta : '')).join('');
  const count = (type: string) => events.filter((event) => event.type === type).length;
  return {
    text: joinOf('text-delta'),
    reasoning: joinOf('reasoning-delta'),
    toolInput: joinOf('tool-call-delta'),
    toolEnds: events.filter((event) => event.type === 'tool-call-end').map((event) => (event.type === 'tool-call-end' ? event.input : '')),
    blocks: [count('text-start'), count('text-end'), count('reasoning-start'), count('reasoning-end'), count('tool-call-start')],
  };
}

describe('Responses items keyed by output_index / content_index (R7.2)', () => {
  const expected = { text: TEXT_0 + TEXT_1, reasoning: REASONING, toolInput: ARGS, toolEnds: [ARGS], blocks: [2, 2, 1, 1, 1] };

  for (const mode of ['stable', 'rotating', 'missing'] as const) {
    it(`${mode} item ids: text, reasoning and tool input once each, in complete blocks`, async () => {
      const events = await collectEvents(decodeResponsesStream(streamOfChunks([buildStream(mode)])));
      expect(summary(events)).toEqual(expected);
      expect(events.at(-1)).toEqual({ type: 'stream-end', terminalFrameSeen: true, toolCallSeen: true });
    });
  }

  it('rotating ids: the same events whether the body comes whole or split at every 7th byte', async () => {
    const bytes = new TextEncoder().encode(buildStream('rotating'));
    const whole = await collectEvents(decodeResponsesStream(streamOfChunks([bytes])));
    const pieces: Uint8Array[] = [];
    for (let start = 0; start < bytes.length; start += 7) pieces.push(bytes.subarray(start, start + 7));
    expect(await collectEvents(decodeResponsesStream(streamOfChunks(pieces)))).toEqual(whole);
  });
});
