import { describe, expect, it } from 'vitest';
import type { Message, TurnSettings } from '@turnguard/core';
import { convertToChatRequest } from './convert-to-chat-request.js';
import { REASONING_ONLY_CONTENT_NOTE, TOOL_RESULT_IMAGE_PLACEHOLDER, convertToChatMessages } from './convert-to-chat-messages.js';

const task: Message = { role: 'user', content: [{ type: 'text', text: 'Prove it.' }] };
const resume: Message = { role: 'user', isMeta: true, content: [{ type: 'text', text: 'Output token limit hit. Resume directly.' }] };

describe('convertToChatMessages (R7.1, R3.5)', () => {
  it('R3.5: a reasoning-only assistant turn keeps its reasoning in reasoning_content with the cut-off note as content', () => {
    const messages: Message[] = [task, { role: 'assistant', content: [{ type: 'reasoning', text: 'Step 1…' }] }, resume];
    expect(convertToChatMessages(messages)).toEqual([
      { role: 'user', content: 'Prove it.' },
      { role: 'assistant', content: REASONING_ONLY_CONTENT_NOTE, reasoning_content: 'Step 1…' },
      { role: 'user', content: 'Output token limit hit. Resume directly.' },
    ]);
    expect(REASONING_ONLY_CONTENT_NOTE).toMatch(/cut off/);
    expect(REASONING_ONLY_CONTENT_NOTE).toMatch(/kept/);
    expect(REASONING_ONLY_CONTENT_NOTE).toMatch(/continue .* or ignore/);
  });

  it('R3.5: a turn with text sends its reasoning as usual; a turn with nothing is dropped', () => {
    const messages: Message[] = [
      task,
      { role: 'assistant', content: [{ type: 'reasoning', text: 'think' }, { type: 'text', text: 'Answer' }] },
      { role: 'assistant', content: [{ type: 'text', text: '' }, { type: 'reasoning', text: '' }] },
      { role: 'assistant', content: [] },
    ];
    expect(convertToChatMessages(messages)).toEqual([
      { role: 'user', content: 'Prove it.' },
      { role: 'assistant', content: 'Answer', reasoning_content: 'think' },
    ]);
  });

  it('reasoning goes to the configured vendor field, or nowhere for OpenAI itself', () => {
    const messages: Message[] = [{ role: 'assistant', content: [{ type: 'reasoning', text: 'r' }, { type: 'text', text: 't' }] }];
    expect(convertToChatMessages(messages, { reasoningField: 'reasoning' })).toEqual([{ role: 'assistant', content: 't', reasoning: 'r' }]);
    expect(convertToChatMessages(messages, { reasoningField: 'omit' })).toEqual([{ role: 'assistant', content: 't' }]);
  });

  it('assistant tool calls get content null; each tool result is its own role:tool message', () => {
    const messages: Message[] = [
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'a', input: '{}' }, { type: 'tool-call', toolCallId: 'c2', toolName: 'b', input: '{"x":1}' }] },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'c1', output: 'one', isError: true },
          { type: 'tool-result', toolCallId: 'c2', output: [{ type: 'text', text: 'two' }, { type: 'image', source: { kind: 'url', url: 'https://x/y.png' } }] },
        ],
      },
    ];
    expect(convertToChatMessages(messages)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'a', arguments: '{}' } },
          { id: 'c2', type: 'function', function: { name: 'b', arguments: '{"x":1}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'one' },
      { role: 'tool', tool_call_id: 'c2', content: [{ type: 'text', text: 'two' }, { type: 'text', text: TOOL_RESULT_IMAGE_PLACEHOLDER }] },
    ]);
  });

  it('system text and user images (URL and base64) map to Chat parts', () => {
    const messages: Message[] = [
      { role: 'system', content: [{ type: 'text', text: 'sys' }] },
      { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image', source: { kind: 'base64', mediaType: 'image/jpeg', data: 'AAA' } }, { type: 'image', source: { kind: 'url', url: 'https://x/z.png' } }] },
    ];
    expect(convertToChatMessages(messages)).toEqual([
      { role: 'system', content: 'sys' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,AAA' } },
          { type: 'image_url', image_url: { url: 'https://x/z.png' } },
        ],
      },
    ]);
  });
});

describe('convertToChatRequest (R7.1)', () => {
  const settings: TurnSettings = {
    model: 'deepseek-chat',
    stream: true,
    maxOutputTokens: 2048,
    tools: [{ name: 'weather', description: 'Get weather', inputSchema: { type: 'object' } }],
    toolChoice: { type: 'tool', toolName: 'weather' },
    providerFields: { temperature: 0 },
  };

  it('writes max_completion_tokens by default, max_tokens when configured, tools and tool_choice', () => {
    expect(convertToChatRequest({ messages: [task] }, settings)).toEqual({
      model: 'deepseek-chat',
      stream: true,
      temperature: 0,
      max_completion_tokens: 2048,
      messages: [{ role: 'user', content: 'Prove it.' }],
      tools: [{ type: 'function', function: { name: 'weather', description: 'Get weather', parameters: { type: 'object' } } }],
      tool_choice: { type: 'function', function: { name: 'weather' } },
    });
    expect(convertToChatRequest({ messages: [task] }, settings, { maxTokensField: 'max_tokens' })).toMatchObject({ max_tokens: 2048 });
    expect(convertToChatRequest({ messages: [task] }, settings, { maxTokensField: 'max_tokens' })).not.toHaveProperty('max_completion_tokens');
  });

  it('meta messages are plain user messages on the wire (isMeta only matters to the host)', () => {
    const request = convertToChatRequest({ messages: [task, resume] }, { model: 'm', stream: false });
    expect(request.messages[1]).toEqual({ role: 'user', content: 'Output token limit hit. Resume directly.' });
    expect(request).toEqual({ model: 'm', stream: false, messages: expect.any(Array) });
  });
});
