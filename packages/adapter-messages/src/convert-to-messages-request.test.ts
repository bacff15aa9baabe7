import { describe, expect, it } from 'vitest';
import type { Prompt, TurnSettings } from '@turnguard/core';
import { convertToMessagesRequest, DEFAULT_MAX_TOKENS } from './convert-to-messages-request.js';

const settings: TurnSettings = { model: 'claude-sonnet-4-5', stream: true, maxOutputTokens: 2000 };

describe('convertToMessagesRequest (R7.1)', () => {
  it('builds system, user, assistant and tool results; a meta message is a plain user message after the results (R3.4)', () => {
    const prompt: Prompt = {
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Run it' }, { type: 'image', source: { kind: 'url', url: 'https://x/y.png' } }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Running.' },
            { type: 'tool-call', toolCallId: 'toolu_1', toolName: 'run', input: '{"cmd":"ls"}' },
          ],
        },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'toolu_1', toolName: 'run', output: 'boom', isError: true }] },
        { role: 'user', isMeta: true, content: [{ type: 'text', text: 'Output token limit hit. Resume directly.' }] },
      ],
    };
    expect(convertToMessagesRequest(prompt, settings)).toStrictEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 2000,
      stream: true,
      system: 'Be brief.',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Run it' }, { type: 'image', source: { type: 'url', url: 'https://x/y.png' } }] },
        { role: 'assistant', content: [{ type: 'text', text: 'Running.' }, { type: 'tool_use', id: 'toolu_1', name: 'run', input: { cmd: 'ls' } }] },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: 'boom', is_error: true },
            { type: 'text', text: 'Output token limit hit. Resume directly.' },
          ],
        },
      ],
    });
  });

  it('keeps a reasoning-only assistant turn with its signature unmodified, drops what the API cannot take (R3.5)', () => {
    const signature = 'EvQBCkYICxgCKkAx/+==';
    const request = convertToMessagesRequest(
      {
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'think' }] },
          { role: 'assistant', content: [{ type: 'reasoning', text: 'deep thought', signature }] },
          { role: 'assistant', content: [{ type: 'reasoning', text: 'unsigned, from another protocol' }] },
          { role: 'assistant', content: [] },
          { role: 'assistant', isApiErrorMessage: true, apiError: { kind: 'overloaded', code: 'OVERLOADED' }, content: [{ type: 'text', text: 'API Error' }] },
          { role: 'assistant', content: [{ type: 'reasoning', text: '', redacted: true, encrypted: 'opaque' }, { type: 'text', text: 'answer' }] },
        ],
      },
      settings,
    );
    expect(request.messages.slice(1)).toStrictEqual([
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'deep thought', signature }] },
      { role: 'assistant', content: [{ type: 'redacted_thinking', data: 'opaque' }, { type: 'text', text: 'answer' }] },
    ]);
  });

  it('sends tool input parsed from our raw text; empty or broken text becomes {}', () => {
    const request = convertToMessagesRequest(
      {
        messages: [
          {
            role: 'assistant',
            content: [
              { type: 'tool-call', toolCallId: 'a', toolName: 't', input: '' },
              { type: 'tool-call', toolCallId: 'b', toolName: 't', input: '{"x": [1, 2' },
              { type: 'tool-call', toolCallId: 'c', toolName: 't', input: '[1]' },
            ],
          },
        ],
      },
      settings,
    );
    expect((request.messages[0]?.content as Array<{ input: unknown }>).map((block) => block.input)).toStrictEqual([{}, {}, {}]);
  });

  it('defaults max_tokens (required by the API) to 4096, or budget + 4096 with extended thinking', () => {
    const prompt: Prompt = { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] };
    expect(convertToMessagesRequest(prompt, { model: 'm', stream: false }).max_tokens).toBe(DEFAULT_MAX_TOKENS);
    expect(DEFAULT_MAX_TOKENS).toBe(4096);
    const thinking = { model: 'm', stream: false, providerFields: { thinking: { type: 'enabled', budget_tokens: 10000 } } };
    expect(convertToMessagesRequest(prompt, thinking).max_tokens).toBe(14096);
    expect(convertToMessagesRequest(prompt, { model: 'm', stream: false }).stream).toBeUndefined();
  });

  it('declares tools and maps tool choice to the Messages dialect', () => {
    const prompt: Prompt = { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] };
    const tools = [{ name: 'get', description: 'Get', inputSchema: { type: 'object' } }];
    const build = (toolChoice: TurnSettings['toolChoice']) => convertToMessagesRequest(prompt, { ...settings, tools, toolChoice });
    expect(build('auto').tools).toStrictEqual([{ name: 'get', description: 'Get', input_schema: { type: 'object' } }]);
    expect(build('auto').tool_choice).toStrictEqual({ type: 'auto' });
    expect(build('required').tool_choice).toStrictEqual({ type: 'any' });
    expect(build('none').tool_choice).toStrictEqual({ type: 'none' });
    expect(build({ type: 'tool', toolName: 'get' }).tool_choice).toStrictEqual({ type: 'tool', name: 'get' });
    expect(build(undefined).tool_choice).toBeUndefined();
  });

  it('writes several system messages as blocks, base64 images with their media type', () => {
    const request = convertToMessagesRequest(
      {
        messages: [
          { role: 'system', content: [{ type: 'text', text: 'one' }] },
          { role: 'system', content: [{ type: 'text', text: 'two', providerFields: { cache_control: { type: 'ephemeral' } } }] },
          { role: 'user', content: [{ type: 'image', source: { kind: 'base64', mediaType: 'image/jpeg', data: 'AAAA' } }] },
        ],
      },
      settings,
    );
    expect(request.system).toStrictEqual([
      { type: 'text', text: 'one' },
      { type: 'text', text: 'two', cache_control: { type: 'ephemeral' } },
    ]);
    expect(request.messages[0]?.content).toStrictEqual([{ type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: 'AAAA' } }]);
  });
});
