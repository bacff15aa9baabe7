import type { ChatCompletionCreateParams } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { REASONING_ONLY_CONTENT_NOTE } from './convert-to-chat-messages.js';
import {
  appendChatMessages,
  getChatMaxOutputTokens,
  getChatModel,
  withChatMaxOutputTokens,
  withChatModel,
  withChatStreaming,
  withChatToolsDisabled,
} from './chat-request-edits.js';
import { buildChatHttpRequest } from './build-chat-http-request.js';

const base = {
  model: 'gpt-4.1',
  messages: [{ role: 'user', content: 'hi' }],
  tools: [{ type: 'function', function: { name: 'weather', parameters: { type: 'object' } } }],
  parallel_tool_calls: false,
  tool_choice: 'required',
  top_k: 20,
} as unknown as ChatCompletionCreateParams;

describe('Chat request edits', () => {
  it('R4.5: tools stay declared, tool_choice becomes "none", everything else is kept', () => {
    const edited = withChatToolsDisabled(base);
    expect(edited).toEqual({ ...base, tool_choice: 'none' });
    expect(base.tool_choice).toBe('required');
  });

  it('R4.5: with no tools declared nothing changes (OpenAI rejects tool_choice without tools)', () => {
    const plain = { model: 'm', messages: [] } as unknown as ChatCompletionCreateParams;
    expect(withChatToolsDisabled(plain)).toEqual(plain);
    const legacy = { model: 'm', messages: [], functions: [{ name: 'f' }] } as unknown as ChatCompletionCreateParams;
    expect(withChatToolsDisabled(legacy)).toEqual({ ...legacy, function_call: 'none' });
  });

  it('keeps whichever output-token field the request used', () => {
    expect(withChatMaxOutputTokens(base, 100)).toEqual({ ...base, max_completion_tokens: 100 });
    const legacy = { ...base, max_tokens: 50 } as ChatCompletionCreateParams;
    expect(withChatMaxOutputTokens(legacy, 100)).toEqual({ ...legacy, max_tokens: 100 });
    expect(getChatMaxOutputTokens(legacy)).toBe(50);
    expect(getChatMaxOutputTokens({ ...legacy, max_completion_tokens: 70 })).toBe(70);
    expect(getChatMaxOutputTokens(base)).toBeUndefined();
  });

  it('streaming on asks for usage and keeps other stream options', () => {
    const edited = withChatStreaming({ ...base, stream_options: { include_obfuscation: false } });
    expect(edited.stream).toBe(true);
    expect(edited.stream_options).toEqual({ include_obfuscation: false, include_usage: true });
  });

  it('model get/set and appending neutral messages (a labelled checkpoint stays user input)', () => {
    expect(getChatModel(withChatModel(base, 'fallback'))).toBe('fallback');
    const appended = appendChatMessages(base, [
      { role: 'assistant', content: [{ type: 'reasoning', text: 'r' }] },
      { role: 'user', isMeta: true, content: [{ type: 'text', text: 'checkpoint' }] },
    ]);
    expect(appended.messages).toEqual([
      ...base.messages,
      { role: 'assistant', content: REASONING_ONLY_CONTENT_NOTE, reasoning_content: 'r' },
      { role: 'user', content: 'checkpoint' },
    ]);
    expect((appended as unknown as { top_k: number }).top_k).toBe(20);
  });

  it('builds the HTTP request: POST {baseUrl}/chat/completions with bearer key and extra headers', () => {
    const request = buildChatHttpRequest(withChatStreaming(base), { baseUrl: 'https://api.example.com/v1/', apiKey: 'sk-x', headers: { 'X-Session': 's1' } });
    expect(request.url).toBe('https://api.example.com/v1/chat/completions');
    expect(request.headers).toEqual({ 'content-type': 'application/json', accept: 'text/event-stream', authorization: 'Bearer sk-x', 'x-session': 's1' });
    expect(JSON.parse(request.body)).toEqual(withChatStreaming(base));
  });

  it('a request already streaming with usage is not copied, and its own bytes are sent as given, with the same headers (R8.2)', () => {
    const streaming = withChatStreaming(base);
    expect(withChatStreaming(streaming)).toBe(streaming);
    expect(withChatStreaming({ ...base, stream: true })).not.toHaveProperty('stream_options', undefined);
    const bytes = Buffer.from(`{ "model" : "${base.model}" }`);
    const target = { baseUrl: 'https://api.example.com/v1/', apiKey: 'sk-x' };
    const request = buildChatHttpRequest(streaming, target, bytes);
    expect(request.body).toBe(bytes);
    expect(request.headers).toEqual(buildChatHttpRequest(streaming, target).headers);
  });
});
