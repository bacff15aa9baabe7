import type { Protocol } from '../adapter/protocol-adapter.js';
import { describe, expect, it } from 'vitest';
import { findCrossFamilyBlockers, withoutProviderTools } from './find-cross-family-blockers.js';

const fn = (name: string) => ({ type: 'function', function: { name, parameters: {} } });

describe('R11.1 / decision 0403: what a fallback of another family cannot answer faithfully', () => {
  it.each<[string, Protocol, Protocol, unknown, string[]]>([
    ['same family: nothing is translated, nothing blocks', 'responses', 'responses', { previous_response_id: 'resp_1', tools: [{ type: 'web_search' }] }, []],
    ['plain Chat with function tools', 'chat', 'messages', { model: 'm', messages: [], tools: [fn('a')], tool_choice: 'auto' }, []],
    ['Chat n > 1', 'chat', 'responses', { n: 2 }, ['n']],
    ['Chat logprobs', 'chat', 'messages', { logprobs: true, top_logprobs: 3 }, ['logprobs']],
    ['Chat audio output', 'chat', 'messages', { modalities: ['text', 'audio'], audio: { voice: 'x', format: 'wav' } }, ['audio']],
    ['Chat structured output toward Messages', 'chat', 'messages', { response_format: { type: 'json_schema', json_schema: {} } }, ['structured-output']],
    ['Chat structured output toward Responses translates', 'chat', 'responses', { response_format: { type: 'json_schema', json_schema: {} } }, []],
    ['Chat custom tool', 'chat', 'responses', { tools: [fn('a'), { type: 'custom', custom: { name: 'g' } }] }, ['tool:custom']],
    ['Responses chained by id', 'responses', 'chat', { previous_response_id: 'resp_1', input: 'hi' }, ['previous_response_id']],
    ['Responses conversation and item reference', 'responses', 'messages', { conversation: 'conv_1', input: [{ type: 'item_reference', id: 'msg_1' }] }, ['conversation', 'item_reference']],
    ['Responses hosted tools', 'responses', 'chat', { tools: [{ type: 'function', name: 'a', parameters: {} }, { type: 'web_search' }, { type: 'mcp', server_label: 's' }] }, ['tool:web_search', 'tool:mcp']],
    ['Responses stateless (Codex: store false, encrypted reasoning asked for)', 'responses', 'messages', { store: false, include: ['reasoning.encrypted_content'], input: [], tools: [{ type: 'function', name: 'shell', parameters: {} }] }, []],
    ['Messages server tools and MCP', 'messages', 'chat', { tools: [{ name: 'Bash', input_schema: {} }, { type: 'web_search_20250305', name: 'web_search' }], mcp_servers: [{ url: 'x' }] }, ['tool:web_search_20250305', 'mcp_servers']],
    ['Messages custom-typed client tool', 'messages', 'responses', { tools: [{ type: 'custom', name: 'Read', input_schema: {} }] }, []],
    ['not an object', 'chat', 'messages', 'nonsense', []],
  ])('%s', (_name, client, target, body, expected) => {
    expect(findCrossFamilyBlockers(client, target, body)).toEqual(expected);
  });

  it('names features, never values', () => {
    const blockers = findCrossFamilyBlockers('responses', 'chat', { previous_response_id: 'resp_MARKER', tools: [{ type: 'web_search', secret: 'MARKER' }] });
    expect(JSON.stringify(blockers)).not.toContain('MARKER');
  });
});

describe('R11.6 withoutProviderTools: a request that calls no tool needs none of the provider\'s own', () => {
  it('drops provider-run tools, keeps function tools (the history may hold their calls)', () => {
    const body = { model: 'm', tools: [fn('a'), { type: 'web_search' }, { type: 'mcp', server_label: 's' }] };
    expect(withoutProviderTools('responses', body)).toEqual({ model: 'm', tools: [fn('a')] });
    expect(withoutProviderTools('messages', { tools: [{ name: 'Bash', input_schema: {} }, { type: 'custom', name: 'R' }, { type: 'web_search_20250305', name: 'w' }] })).toEqual({ tools: [{ name: 'Bash', input_schema: {} }, { type: 'custom', name: 'R' }] });
    const plain = { tools: [fn('a')] };
    expect(withoutProviderTools('chat', plain)).toBe(plain);
  });
});
