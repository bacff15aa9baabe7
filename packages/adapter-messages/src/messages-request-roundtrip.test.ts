import { describe, expect, it } from 'vitest';
import { convertToMessagesRequest } from './convert-to-messages-request.js';
import type { MessageCreateParams } from './messages-types.js';
import { parseMessagesRequest } from './parse-messages-request.js';

/** R7.1, gateway direction: `buildRequest(parseRequest(x))` deep-equals `x`, unknown fields included. */
function roundTrip(native: unknown): unknown {
  const { prompt, settings } = parseMessagesRequest(native as MessageCreateParams);
  return convertToMessagesRequest(prompt, settings);
}

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

const realistic: Array<[string, unknown]> = [
  [
    'plain strings (system and content as strings)',
    { model: 'claude-sonnet-4-5', max_tokens: 1024, system: 'Be brief.', messages: [{ role: 'user', content: 'Hello' }, { role: 'assistant', content: 'Hi!' }, { role: 'user', content: 'Bye' }] },
  ],
  [
    'agent turn: system blocks with cache_control, thinking with signatures, redacted thinking, tool use, results then text, images',
    {
      model: 'claude-opus-4-5',
      max_tokens: 32000,
      stream: true,
      system: [
        { type: 'text', text: 'You are a coding agent.', cache_control: { type: 'ephemeral' } },
        { type: 'text', text: 'Repo rules.' },
      ],
      thinking: { type: 'enabled', budget_tokens: 10000 },
      metadata: { user_id: 'u-1' },
      top_k: 5,
      temperature: 1,
      stop_sequences: ['</done>'],
      tools: [
        { name: 'read_file', description: 'Read a file', input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }, cache_control: { type: 'ephemeral' } },
        { type: 'web_search_20250305', name: 'web_search', max_uses: 3 },
        { name: 'list', input_schema: { type: 'object', properties: {} } },
      ],
      tool_choice: { type: 'auto', disable_parallel_tool_use: true },
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look at this' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' }, cache_control: { type: 'ephemeral' } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'I should read the file.', signature: 'EvQBCkYICxgCKkAx+/=' },
            { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4a' },
            { type: 'text', text: 'Reading it.' },
            { type: 'tool_use', id: 'toolu_01', name: 'read_file', input: { path: 'a.ts', options: { lines: [1, 2] } } },
            { type: 'tool_use', id: 'toolu_02', name: 'list', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_01', content: 'export const a = 1;' },
            { type: 'tool_result', tool_use_id: 'toolu_02', content: [{ type: 'text', text: 'a.ts' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }], is_error: false },
            { type: 'text', text: 'Now fix it.', cache_control: { type: 'ephemeral', ttl: '1h' } },
          ],
        },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'Only thinking so far.', signature: 'sig-2' }] },
      ],
    },
  ],
  [
    'error results, absent result content, documents, citations, consecutive user messages, stream false',
    {
      model: 'claude-haiku-4-5',
      max_tokens: 512,
      stream: false,
      tool_choice: { type: 'tool', name: 'lookup' },
      tools: [{ name: 'lookup', input_schema: { type: 'object' }, strict: true }],
      messages: [
        { role: 'user', content: [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'doc' }, citations: { enabled: true } }, { type: 'text', text: 'Summarise' }] },
        { role: 'user', content: 'and be short' },
        { role: 'assistant', content: [{ type: 'text', text: 'It says doc.', citations: [{ type: 'char_location', cited_text: 'doc', document_index: 0, document_title: null, start_char_index: 0, end_char_index: 3 }] }, { type: 'tool_use', id: 'toolu_9', name: 'lookup', input: { q: 'x' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_9', is_error: true, content: 'boom' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_10', name: 'lookup', input: { q: 'y' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_10' }] },
      ],
    },
  ],
  [
    'one-block system array, tool_choice none and any, server tool use blocks kept in place',
    {
      model: 'claude-sonnet-4-5',
      max_tokens: 2048,
      system: [{ type: 'text', text: 'Only block.' }],
      tool_choice: { type: 'any' },
      tools: [{ type: 'web_search_20250305', name: 'web_search' }],
      messages: [
        { role: 'user', content: 'search' },
        {
          role: 'assistant',
          content: [
            { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'x' } },
            { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] },
            { type: 'text', text: 'Found nothing.' },
          ],
        },
        { role: 'user', content: [{ type: 'text', text: 'ok' }] },
      ],
    },
  ],
];

describe('parseMessagesRequest ∘ convertToMessagesRequest is lossless (R7.1)', () => {
  it.each(realistic)('%s', (_name, native) => {
    expect(roundTrip(native)).toStrictEqual(native);
    // And the neutral form is stable under a second trip.
    expect(roundTrip(roundTrip(native))).toStrictEqual(native);
  });

  it('keeps unknown top-level fields in settings.providerFields and models the known ones', () => {
    const { prompt, settings } = parseMessagesRequest(realistic[1]?.[1] as MessageCreateParams);
    expect(settings).toMatchObject({ model: 'claude-opus-4-5', stream: true, maxOutputTokens: 32000, toolChoice: 'auto' });
    expect(settings.providerFields).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 10000 }, metadata: { user_id: 'u-1' }, top_k: 5 });
    expect(settings.tools?.map((tool) => tool.name)).toEqual(['read_file', 'list']);
    // tool results are neutral tool messages (with the tool name found from the tool_use), followed by the user text
    expect(prompt.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool', 'user', 'assistant']);
    const toolMessage = prompt.messages[3];
    expect(toolMessage?.role === 'tool' && toolMessage.content.map((part) => [part.toolCallId, part.toolName])).toEqual([
      ['toolu_01', 'read_file'],
      ['toolu_02', 'list'],
    ]);
    const assistant = prompt.messages[2];
    expect(assistant?.role === 'assistant' && assistant.content.slice(0, 2)).toEqual([
      { type: 'reasoning', text: 'I should read the file.', signature: 'EvQBCkYICxgCKkAx+/=' },
      { type: 'reasoning', text: '', encrypted: 'EmwKAhgBEgy3va3pzix/LafPsn4a', redacted: true },
    ]);
  });

  it('rejects a body that is not a Messages request with a typed error', () => {
    expect(() => parseMessagesRequest({ model: 'x', max_tokens: 1, messages: 'nope' } as unknown as MessageCreateParams)).toThrow(
      expect.objectContaining({ kind: 'invalid_request' }),
    );
    expect(() => parseMessagesRequest({ messages: [] } as unknown as MessageCreateParams)).toThrow(expect.objectContaining({ kind: 'invalid_request' }));
    expect(() =>
      parseMessagesRequest({ model: 'x', max_tokens: 1, messages: [{ role: 'robot', content: 'x' }] } as unknown as MessageCreateParams),
    ).toThrow(/role/);
  });
});
