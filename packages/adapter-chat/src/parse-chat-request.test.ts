import type { ChatCompletionCreateParams } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { TurnError } from '@turnguard/core';
import { convertToChatRequest } from './convert-to-chat-request.js';
import { parseChatRequest } from './parse-chat-request.js';

const asRequest = (value: Record<string, unknown>) => value as unknown as ChatCompletionCreateParams;
const roundTrip = (native: ChatCompletionCreateParams) => {
  const { prompt, settings } = parseChatRequest(structuredClone(native));
  return convertToChatRequest(prompt, settings);
};

/** Realistic bodies as agent hosts and IDEs send them (shapes from wire-formats §1, §5, §6.2). */
const realisticRequests: Record<string, ChatCompletionCreateParams> = {
  'agent turn with tools, tool results and stream_options': asRequest({
    model: 'gpt-4.1',
    stream: true,
    stream_options: { include_usage: true },
    max_completion_tokens: 4096,
    temperature: 0.2,
    parallel_tool_calls: true,
    metadata: { session: 'abc' },
    messages: [
      { role: 'developer', content: 'You are a coding agent.' },
      { role: 'user', content: 'What is the weather in Oslo?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: '{"tempC":4}' },
      { role: 'assistant', content: 'It is 4 °C.' },
    ],
    tools: [
      { type: 'function', function: { name: 'weather', description: 'Get weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: true } },
      { type: 'function', function: { name: 'now' } },
    ],
    tool_choice: 'auto',
  }),
  'DeepSeek thinking round trip with vendor fields': asRequest({
    model: 'deepseek-reasoner',
    stream: true,
    max_tokens: 8000,
    top_k: 40,
    enable_thinking: true,
    messages: [
      { role: 'system', content: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }] },
      { role: 'user', content: 'Plan it.' },
      { role: 'assistant', content: '', reasoning_content: 'Let me think…', tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'plan', arguments: '{}' }, extra_content: { google: { thought_signature: 'sig' } } }] },
      { role: 'tool', tool_call_id: 'call_a', content: [{ type: 'text', text: 'ok' }] },
      { role: 'assistant', content: 'Done.', reasoning: 'vLLM style' },
    ],
    tool_choice: { type: 'function', function: { name: 'plan' } },
  }),
  'images, audio and files in user content': asRequest({
    model: 'gpt-4o',
    messages: [
      {
        role: 'user',
        name: 'alice',
        content: [
          { type: 'text', text: 'Compare these.' },
          { type: 'image_url', image_url: { url: 'https://example.com/a.png', detail: 'high' } },
          { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          { type: 'file', file: { file_id: 'file-1' } },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'A is ' }, { type: 'refusal', refusal: 'no' }], refusal: null },
    ],
    stream: false,
    response_format: { type: 'json_object' },
  }),
  'custom tools, allowed_tools choice and null fields': asRequest({
    model: 'gpt-5',
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'assistant', tool_calls: [{ id: 'c9', type: 'custom', custom: { name: 'grep', input: 'foo' } }] },
      { role: 'tool', tool_call_id: 'c9', content: 'no match' },
    ],
    tools: [{ type: 'custom', custom: { name: 'grep', format: { type: 'text' } } }],
    tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'auto', tools: [] } },
    max_completion_tokens: null,
    max_tokens: 100,
    reasoning_effort: 'low',
  }),
};

describe('parseChatRequest is lossless (R7.1)', () => {
  for (const [name, native] of Object.entries(realisticRequests)) {
    it(`buildRequest(parseRequest(x)) deep-equals x: ${name}`, () => {
      expect(roundTrip(native)).toStrictEqual(native);
    });
  }

  it('models what it understands as neutral fields', () => {
    const { prompt, settings } = parseChatRequest(realisticRequests['agent turn with tools, tool results and stream_options']!);
    expect(settings).toMatchObject({ model: 'gpt-4.1', stream: true, maxOutputTokens: 4096, toolChoice: 'auto' });
    expect(settings.tools?.map((tool) => tool.name)).toEqual(['weather', 'now']);
    expect(settings.providerFields).toMatchObject({ temperature: 0.2, stream_options: { include_usage: true }, parallel_tool_calls: true });
    expect(prompt.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant']);
    expect(prompt.messages[2]?.content).toEqual([{ type: 'tool-call', toolCallId: 'call_1', toolName: 'weather', input: '{"city":"Oslo"}' }]);
    const deepseek = parseChatRequest(realisticRequests['DeepSeek thinking round trip with vendor fields']!);
    expect(deepseek.settings.maxOutputTokens).toBe(8000);
    expect(deepseek.settings.toolChoice).toEqual({ type: 'tool', toolName: 'plan' });
    expect(deepseek.prompt.messages[2]?.content[0]).toEqual({ type: 'reasoning', text: 'Let me think…' });
    const images = parseChatRequest(realisticRequests['images, audio and files in user content']!);
    expect(images.prompt.messages[0]?.content.map((part) => part.type)).toEqual(['text', 'image', 'image']);
    expect(images.prompt.messages[0]?.content[2]).toMatchObject({ source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' } });
  });

  it('rejects what it cannot carry with a typed error, never a crash', () => {
    for (const bad of [
      { model: 'm', messages: 'x' },
      { model: 1, messages: [] },
      { model: 'm', messages: [{ role: 'function', name: 'f', content: 'x' }] },
      { model: 'm', messages: [{ role: 'tool', content: 'x' }] },
      { model: 'm', messages: [{ role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: {} } }] }] },
    ]) {
      let thrown: unknown;
      try {
        parseChatRequest(asRequest(bad));
      } catch (error) {
        thrown = error;
      }
      expect(TurnError.isInstance(thrown) && thrown.kind).toBe('invalid_request');
    }
  });
});
