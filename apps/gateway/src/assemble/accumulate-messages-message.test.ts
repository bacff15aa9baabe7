import { describe, expect, it } from 'vitest';
import { MessagesMessageAccumulator } from './accumulate-messages-message.js';

const start = (id: string, usage: Record<string, unknown>): Record<string, unknown> => ({
  type: 'message_start',
  message: { id, type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, stop_sequence: null, usage },
});

function accumulate(events: Array<Record<string, unknown>>): Record<string, unknown> {
  const accumulator = new MessagesMessageAccumulator();
  for (const event of events) accumulator.add(structuredClone(event));
  return accumulator.finalize();
}

describe('MessagesMessageAccumulator (@anthropic-ai/sdk #accumulateMessage, decision 0235)', () => {
  it('a repeated message_start keeps the open message and its content (the SDK throws; the decoder ignores the repeat)', () => {
    const message = accumulate([
      start('msg_1', { input_tokens: 3, output_tokens: 1 }),
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } },
      start('msg_1', { input_tokens: 99, output_tokens: 99 }),
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: '!' } },
    ]);
    expect(message).toMatchObject({ id: 'msg_1', content: [{ type: 'text', text: 'Hi!' }], usage: { input_tokens: 3, output_tokens: 1 } });
  });

  it('tool input: the joined partial JSON parsed, an empty one {}, no delta the start block’s, text that is not JSON kept as text', () => {
    const tool = (index: number, parts: string[]): Array<Record<string, unknown>> => [
      { type: 'content_block_start', index, content_block: { type: 'tool_use', id: `t${index}`, name: 'f', input: index === 2 ? { given: true } : {} } },
      ...parts.map((partial_json) => ({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } })),
    ];
    const message = accumulate([start('msg_2', { input_tokens: 1 }), ...tool(0, ['{"a":', '1}']), ...tool(1, ['']), ...tool(2, []), ...tool(3, ['{"cut'])]);
    expect((message.content as Array<Record<string, unknown>>).map((block) => block.input)).toEqual([{ a: 1 }, {}, { given: true }, '{"cut']);
  });

  it('message_delta: stop fields set, output_tokens always, the other counters only when present', () => {
    const message = accumulate([
      start('msg_3', { input_tokens: 5, cache_read_input_tokens: 2, output_tokens: 1 }),
      { type: 'message_delta', delta: { stop_reason: 'max_tokens', stop_sequence: null }, usage: { output_tokens: 7, cache_read_input_tokens: null } },
    ]);
    expect(message).toMatchObject({ stop_reason: 'max_tokens', stop_sequence: null, usage: { input_tokens: 5, cache_read_input_tokens: 2, output_tokens: 7 } });
  });
});
