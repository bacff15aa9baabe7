import { describe, expect, it } from 'vitest';
import { ANTHROPIC_VERSION, buildMessagesHttpRequest } from './build-messages-http-request.js';
import {
  appendMessages,
  getMaxOutputTokens,
  getModel,
  getThinkingBudget,
  withMaxOutputTokens,
  withModel,
  withStreaming,
  withToolsDisabled,
} from './messages-request-edits.js';
import type { MessageCreateParams } from './messages-types.js';

const base = {
  model: 'claude-sonnet-4-5',
  max_tokens: 1000,
  system: 'sys',
  tools: [{ name: 'get', input_schema: { type: 'object' as const } }],
  tool_choice: { type: 'auto' as const },
  metadata: { user_id: 'u' },
  messages: [{ role: 'user' as const, content: 'hi' }],
} satisfies MessageCreateParams;

describe('Messages request edits', () => {
  it('R4.5: disables tools with tool_choice none and keeps the declarations', () => {
    const edited = withToolsDisabled(base);
    expect(edited).toStrictEqual({ ...base, tool_choice: { type: 'none' } });
    expect(base.tool_choice).toStrictEqual({ type: 'auto' });
    const noTools = { model: 'm', max_tokens: 1, messages: [] } satisfies MessageCreateParams;
    expect(withToolsDisabled(noTools)).toBe(noTools);
  });

  it('sets max_tokens, model and stream without touching anything else', () => {
    expect(withMaxOutputTokens(base, 64000)).toStrictEqual({ ...base, max_tokens: 64000 });
    expect(getMaxOutputTokens(withMaxOutputTokens(base, 3000))).toBe(3000);
    expect(withModel(base, 'claude-haiku-4-5')).toStrictEqual({ ...base, model: 'claude-haiku-4-5' });
    expect(getModel(base)).toBe('claude-sonnet-4-5');
    expect(withStreaming(base)).toStrictEqual({ ...base, stream: true });
  });

  it('keeps max_tokens above an enabled thinking budget, as Anthropic requires (R4.7 recovery cap, R1.8 resize)', () => {
    const thinking = { ...base, max_tokens: 32000, thinking: { type: 'enabled', budget_tokens: 16000 } } as MessageCreateParams;
    expect(getThinkingBudget(thinking)).toBe(16000);
    // The 8192-token recovery cap: the budget shrinks just below it.
    expect(withMaxOutputTokens(thinking, 8192)).toStrictEqual({ ...thinking, max_tokens: 8192, thinking: { type: 'enabled', budget_tokens: 8191 } });
    // No valid budget (>= 1024) fits below 1000: thinking is switched off rather than sent invalid.
    expect(withMaxOutputTokens(thinking, 1000)).toStrictEqual({ ...thinking, max_tokens: 1000, thinking: { type: 'disabled' } });
    // A cap above the budget leaves thinking alone.
    expect(withMaxOutputTokens(thinking, 64000)).toStrictEqual({ ...thinking, max_tokens: 64000 });
    expect(getThinkingBudget(base)).toBeUndefined();
  });

  it('appends neutral messages (e.g. a labelled checkpoint) keeping every other field', () => {
    const appended = appendMessages(
      { ...base, messages: [...base.messages, { role: 'assistant', content: [{ type: 'thinking', thinking: 't', signature: 's' }] }] },
      [{ role: 'user', content: [{ type: 'text', text: 'checkpoint' }] }],
    );
    expect(appended).toStrictEqual({
      ...base,
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 't', signature: 's' }] },
        { role: 'user', content: [{ type: 'text', text: 'checkpoint' }] },
      ],
    });
  });
});

describe('buildMessagesHttpRequest', () => {
  it('posts to <baseUrl>/v1/messages like the SDK with x-api-key and anthropic-version', () => {
    const request = buildMessagesHttpRequest({ ...base, stream: true }, { baseUrl: 'https://api.anthropic.com/', apiKey: 'sk-ant-x', headers: { 'Anthropic-Beta': 'b1' } });
    expect(request.url).toBe('https://api.anthropic.com/v1/messages');
    expect(request.headers).toStrictEqual({
      'content-type': 'application/json',
      accept: 'text/event-stream',
      'anthropic-version': ANTHROPIC_VERSION,
      'anthropic-beta': 'b1',
      'x-api-key': 'sk-ant-x',
    });
    expect(ANTHROPIC_VERSION).toBe('2023-06-01');
    expect(JSON.parse(request.body)).toStrictEqual({ ...base, stream: true });
  });

  it('a streaming request is not copied, and its own bytes are sent as given, with the same headers (R8.2)', () => {
    const streaming = withStreaming(base);
    expect(streaming).not.toBe(base);
    expect(withStreaming(streaming)).toBe(streaming);
    const bytes = Buffer.from('{"model":"m"}');
    const target = { baseUrl: 'https://api.anthropic.com/', apiKey: 'sk-ant-x' };
    const request = buildMessagesHttpRequest(streaming, target, bytes);
    expect(request.body).toBe(bytes);
    expect(request.headers).toStrictEqual(buildMessagesHttpRequest(streaming, target).headers);
  });

  it('sends no credential header when none is configured, and keeps a path prefix of the base URL', () => {
    const request = buildMessagesHttpRequest(base, { baseUrl: 'http://127.0.0.1:8080/proxy' });
    expect(request.url).toBe('http://127.0.0.1:8080/proxy/v1/messages');
    expect(request.headers['x-api-key']).toBeUndefined();
    expect(request.headers['accept']).toBe('application/json');
  });
});
