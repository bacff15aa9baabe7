import { describe, expect, it } from 'vitest';
import type { Message, Prompt, TurnSettings } from '@turnguard/core';
import type { ResponseCreateParams } from 'openai/resources/responses/responses';
import { responsesAdapter } from './responses-adapter.js';

const asNative = (value: Record<string, unknown>) => value as unknown as ResponseCreateParams;

/** Realistic request bodies, as hosts (openai-node, codex, vercel/ai) send them. */
const REALISTIC_REQUESTS: Record<string, Record<string, unknown>> = {
  'input as a plain string': { model: 'gpt-5.1', input: 'Tell me a joke.' },
  'instructions + easy messages + images + vendor fields': {
    model: 'gpt-5.1',
    instructions: 'You are terse.',
    input: [
      { role: 'user', content: 'hi' },
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: 'What is in this image?' },
          { type: 'input_image', image_url: 'https://example.test/cat.png', detail: 'low' },
          { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'auto' },
        ],
      },
    ],
    store: false,
    include: ['reasoning.encrypted_content'],
    reasoning: { effort: 'high', summary: 'detailed' },
    text: { format: { type: 'json_schema', name: 'x', schema: { type: 'object' }, strict: true }, verbosity: 'low' },
    metadata: { session: 'abc' },
    temperature: null,
    max_output_tokens: 4096,
    stream: true,
    x_vendor_extension: { nested: [1, 2] },
  },
  'developer message in input, reasoning round trip, function call + output, custom and web-search tools': {
    model: 'gpt-5.2-codex',
    input: [
      { role: 'developer', content: [{ type: 'input_text', text: 'Use tools.' }] },
      { role: 'user', content: [{ type: 'input_text', text: 'Weather in SF?' }] },
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Need weather.' }], encrypted_content: 'gAAAA…' },
      { type: 'reasoning', id: 'rs_2', summary: [{ text: 'a', type: 'summary_text' }, { type: 'summary_text', text: 'b' }], status: 'completed' },
      { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'weather', arguments: '{"location":"SF"}', status: 'completed' },
      { type: 'function_call_output', call_id: 'call_1', output: '{"temp":18}' },
      { type: 'custom_tool_call', id: 'ct_1', call_id: 'call_2', name: 'write_sql', input: 'SELECT 1' },
      { type: 'custom_tool_call_output', call_id: 'call_2', output: [{ type: 'input_text', text: '1 row' }] },
      { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'sf' } },
      { type: 'item_reference', id: 'msg_old' },
      { id: 'msg_2', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'It is 18°C.', annotations: [], logprobs: [] }] },
      { role: 'assistant', content: [{ type: 'refusal', refusal: 'no' }] },
      { role: 'user', content: [{ type: 'input_file', file_id: 'file_1' }, { type: 'input_text', text: 'see file' }] },
    ],
    tools: [
      { type: 'function', name: 'weather', description: null, parameters: { type: 'object', properties: { location: { type: 'string' } } }, strict: true },
      { type: 'function', name: 'noop', parameters: { type: 'object' } },
      { type: 'custom', name: 'write_sql', description: 'SQL', format: { type: 'grammar', syntax: 'regex', definition: 'SELECT .+' } },
      { type: 'web_search' },
    ],
    tool_choice: 'required',
    previous_response_id: null,
    parallel_tool_calls: true,
  },
  'hosted tool_choice, null max_output_tokens, explicit stream false, empty input list': {
    model: 'gpt-5.1',
    input: [],
    tool_choice: { type: 'allowed_tools', mode: 'auto', tools: [{ type: 'function', name: 'a' }] },
    max_output_tokens: null,
    stream: false,
    previous_response_id: 'resp_1',
  },
  'function tool_choice and instructions as an item list': {
    model: 'gpt-4.1',
    instructions: [{ role: 'developer', content: 'be brief' }],
    input: [{ role: 'system', content: 'sys in input' }, { role: 'user', content: 'go' }],
    tools: [{ type: 'function', name: 'a', parameters: { type: 'object' }, strict: false }],
    tool_choice: { type: 'function', name: 'a' },
  },
};

describe('parseRequest / buildRequest are lossless (R7.1)', () => {
  for (const [name, request] of Object.entries(REALISTIC_REQUESTS)) {
    it(`buildRequest(parseRequest(x)) deep-equals x: ${name}`, () => {
      const { prompt, settings } = responsesAdapter.parseRequest(asNative(structuredClone(request)));
      expect(responsesAdapter.buildRequest(prompt, settings)).toEqual(request);
    });
  }

  it('models what it understands: system placement, images, reasoning, tool calls and results', () => {
    const { prompt, settings } = responsesAdapter.parseRequest(
      asNative(REALISTIC_REQUESTS['developer message in input, reasoning round trip, function call + output, custom and web-search tools']!),
    );
    const [developer, , reasoning, , call, output] = prompt.messages;
    expect(developer).toMatchObject({ role: 'system', content: [{ type: 'text', text: 'Use tools.' }] });
    expect(reasoning).toMatchObject({ role: 'assistant', content: [{ type: 'reasoning', id: 'rs_1', encrypted: 'gAAAA…', text: 'Need weather.' }] });
    expect(call).toMatchObject({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'weather', input: '{"location":"SF"}' }] });
    expect(output).toMatchObject({ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_1', output: '{"temp":18}' }] });
    expect(settings).toMatchObject({ model: 'gpt-5.2-codex', stream: false, toolChoice: 'required' });
    expect(settings.tools?.map((tool) => tool.name)).toEqual(['weather', 'noop', 'write_sql', 'web_search']);
  });
});

describe('buildRequest from neutral messages (R7.1, R3.5)', () => {
  const settings: TurnSettings = {
    model: 'gpt-5.1',
    stream: true,
    maxOutputTokens: 2000,
    tools: [{ name: 'weather', description: 'Get weather', inputSchema: { type: 'object' } }],
    toolChoice: { type: 'tool', toolName: 'weather' },
  };

  it('converts every neutral message kind to Responses items', () => {
    const messages: Message[] = [
      { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
      { role: 'user', content: [{ type: 'text', text: 'hi' }, { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AAA=' } }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'thinking', id: 'rs_1', encrypted: 'enc' },
          { type: 'text', text: 'Let me check.' },
          { type: 'tool-call', toolCallId: 'call_1', toolName: 'weather', input: '{"city":"SF"' },
        ],
      },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_1', output: 'sunny', isError: false }] },
      // R3.5: reasoning-only turn kept; a Messages-style thinking part (signature only) cannot be sent to Responses.
      { role: 'assistant', content: [{ type: 'reasoning', text: 'cut off', id: 'rs_2' }] },
      { role: 'assistant', content: [{ type: 'reasoning', text: 'anthropic', signature: 'sig' }] },
      { role: 'assistant', content: [] },
      { role: 'user', isMeta: true, content: [{ type: 'text', text: 'Output token limit hit. Resume directly.' }] },
      { role: 'system', content: [{ type: 'text', text: 'late system' }] },
    ];
    expect(responsesAdapter.buildRequest({ messages }, settings)).toEqual({
      model: 'gpt-5.1',
      instructions: 'Be brief.',
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'hi' }, { type: 'input_image', image_url: 'data:image/png;base64,AAA=' }] },
        { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'thinking' }], encrypted_content: 'enc' },
        { role: 'assistant', content: [{ type: 'output_text', text: 'Let me check.', annotations: [] }] },
        { type: 'function_call', call_id: 'call_1', name: 'weather', arguments: '{"city":"SF"' },
        { type: 'function_call_output', call_id: 'call_1', output: 'sunny' },
        { type: 'reasoning', id: 'rs_2', summary: [{ type: 'summary_text', text: 'cut off' }] },
        { role: 'user', content: [{ type: 'input_text', text: 'Output token limit hit. Resume directly.' }] },
        { role: 'system', content: [{ type: 'input_text', text: 'late system' }] },
      ],
      tools: [{ type: 'function', name: 'weather', description: 'Get weather', parameters: { type: 'object' }, strict: false }],
      tool_choice: { type: 'function', name: 'weather' },
      max_output_tokens: 2000,
      stream: true,
    });
  });
});

describe('request edits', () => {
  const base = asNative({ model: 'gpt-5.1', input: 'q', tools: [{ type: 'function', name: 'a', parameters: {} }], tool_choice: 'auto', store: false });

  it('R4.5: withToolsDisabled keeps the tool declarations and sets tool_choice "none"', () => {
    expect(responsesAdapter.withToolsDisabled(base)).toEqual({ ...base, tool_choice: 'none' });
    expect(base.tool_choice).toBe('auto'); // not mutated
  });

  it('withStreaming, withMaxOutputTokens, withModel and the getters', () => {
    const edited = responsesAdapter.withModel(responsesAdapter.withMaxOutputTokens(responsesAdapter.withStreaming(base), 8192), 'gpt-5-mini');
    expect(edited).toEqual({ ...base, stream: true, max_output_tokens: 8192, model: 'gpt-5-mini' });
    expect(responsesAdapter.getMaxOutputTokens(edited)).toBe(8192);
    expect(responsesAdapter.getMaxOutputTokens(base)).toBeUndefined();
    expect(responsesAdapter.getModel(edited)).toBe('gpt-5-mini');
  });

  it('appendMessages turns a string input into a user item and appends input material, never instructions (R4.4)', () => {
    const appended = responsesAdapter.appendMessages(base, [{ role: 'user', content: [{ type: 'text', text: 'checkpoint' }] }]);
    expect(appended).toEqual({
      ...base,
      input: [{ role: 'user', content: 'q' }, { role: 'user', content: [{ type: 'input_text', text: 'checkpoint' }] }],
    });
  });

  it('buildHttpRequest posts to {baseUrl}/responses with a bearer key', () => {
    const request = responsesAdapter.buildHttpRequest(asNative({ model: 'm', input: 'x', stream: true }), {
      baseUrl: 'https://api.openai.test/v1/',
      apiKey: 'sk-test',
      headers: { 'x-session': 's1' },
    });
    expect(request).toEqual({
      url: 'https://api.openai.test/v1/responses',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: 'Bearer sk-test', 'x-session': 's1' },
      body: '{"model":"m","input":"x","stream":true}',
    });
  });
});

describe('a prompt built from scratch survives parse → build', () => {
  it('keeps a leading system message as instructions and the rest as items', () => {
    const prompt: Prompt = {
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'S' }] },
        { role: 'user', content: [{ type: 'text', text: 'U' }] },
      ],
    };
    const native = responsesAdapter.buildRequest(prompt, { model: 'm', stream: false });
    const reparsed = responsesAdapter.parseRequest(native);
    expect(responsesAdapter.buildRequest(reparsed.prompt, reparsed.settings)).toEqual(native);
  });
});
