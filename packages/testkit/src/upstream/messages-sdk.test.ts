import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { scenario } from '../scenario/builder.js';
import { useSdkUpstream } from './sdk-upstream.test-helper.js';

// Conformance oracle for Anthropic Messages: what @anthropic-ai/sdk parses
// out of the testkit's wire (R7 wire fidelity, R4 cut streams, R5 usage, R1 errors).
// The SDK appends `/v1/messages` itself, so its base is the mock's origin.
const sdk = useSdkUpstream(() => new Anthropic({ apiKey: 'sk-ant-test', baseURL: 'https://api.test', maxRetries: 0 }));
const { upstream } = sdk;

const request = { model: 'claude-test', max_tokens: 1024, messages: [{ role: 'user' as const, content: 'hi' }] };

async function collectEvents(): Promise<Anthropic.RawMessageStreamEvent[]> {
  const stream = await sdk.client.messages.create({ ...request, stream: true });
  const events: Anthropic.RawMessageStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('messages scenarios through the anthropic SDK (R7, R5)', () => {
  it('streams thinking then text with end_turn and usage, as MessageStream accumulates it', async () => {
    upstream.messages.enqueue(scenario.messages().reasoning(300).text('Hi').usage({ input: 10, output: 20 }).finish('end_turn'));
    const message = await sdk.client.messages.stream(request).finalMessage();
    const [thinking, text] = message.content;
    expect(thinking?.type).toBe('thinking');
    expect(thinking?.type === 'thinking' ? [thinking.thinking.length, thinking.signature.length > 0] : []).toEqual([300, true]);
    expect(text?.type === 'text' ? text.text : undefined).toBe('Hi');
    expect(message.stop_reason).toBe('end_turn');
    expect(message.model).toBe('claude-test');
    expect(message.usage.input_tokens).toBe(10);
    expect(message.usage.output_tokens).toBe(20);
  });

  it('streams a tool_use block whose partial_json the SDK parses into input', async () => {
    upstream.messages.enqueue(scenario
        .messages()
        .text('Let me check.')
        .toolCall('get_weather', { city: 'Paris' }, { id: 'toolu_1' })
        .usage({ input: 1, output: 2 }));
    const message = await sdk.client.messages.stream(request).finalMessage();
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content[1]).toEqual({ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } });
  });

  it.each(['end_turn', 'max_tokens', 'tool_use', 'stop_sequence', 'refusal', 'pause_turn'] as const)(
    'ends with stop_reason %s',
    async (reason) => {
      upstream.messages.enqueue(scenario.messages().text('x').usage({ input: 1, output: 1 }).finish(reason));
      const message = await sdk.client.messages.stream(request).finalMessage();
      expect(message.stop_reason).toBe(reason);
    },
  );

  it('leaves usage really absent from message_start and message_delta when the scenario has none', async () => {
    upstream.messages.enqueue(scenario.messages().text('Hi'));
    const events = await collectEvents();
    const start = events.find((event) => event.type === 'message_start');
    const delta = events.find((event) => event.type === 'message_delta');
    expect(start?.type === 'message_start' && 'usage' in start.message).toBe(false);
    expect(delta !== undefined && 'usage' in delta).toBe(false);
    expect(delta?.type === 'message_delta' ? delta.delta.stop_reason : undefined).toBe('end_turn');
  });

  it('EOF during thinking ends the stream silently without message_delta/message_stop (R4.1)', async () => {
    upstream.messages.enqueue(scenario.messages().reasoning(2000).eof());
    const events = await collectEvents();
    const thinking = events
      .map((event) => (event.type === 'content_block_delta' && event.delta.type === 'thinking_delta' ? event.delta.thinking : ''))
      .join('');
    expect(thinking).toHaveLength(2000);
    expect(events.some((event) => event.type === 'message_delta' || event.type === 'message_stop')).toBe(false);
  });

  it('EOF before any event makes finalMessage() reject', async () => {
    upstream.messages.enqueue(scenario.messages().text('x').eof({ afterEvents: 0 }));
    await expect(sdk.client.messages.stream(request).finalMessage()).rejects.toThrow(/request ended without sending any chunks/);
  });

  it('an `event: error` overloaded_error becomes an APIError after the text before it (R2.1)', async () => {
    upstream.messages.enqueue(scenario.messages().text('Partial').streamError({ type: 'overloaded_error' }));
    const seen: string[] = [];
    const consume = async (): Promise<void> => {
      const stream = await sdk.client.messages.create({ ...request, stream: true });
      for await (const event of stream) {
        if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') seen.push(event.delta.text);
      }
    };
    const error = await consume().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });
    expect(seen.join('')).toBe('Partial');
  });

  it('a 429 with retry-after and request-id reaches the SDK as RateLimitError (R1.3)', async () => {
    upstream.messages.enqueue(scenario.messages().httpError(429, { headers: { 'retry-after': '7' } }));
    const error = await sdk.client.messages.create(request).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    const apiError = error as InstanceType<typeof Anthropic.RateLimitError>;
    expect(apiError.headers?.get('retry-after')).toBe('7');
    expect(apiError.requestID).toMatch(/^req_/);
    expect(apiError.error).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
  });

  it('a 529 carries overloaded_error in the Anthropic error shape', async () => {
    upstream.messages.enqueue(scenario.messages().httpError(529));
    const error = await sdk.client.messages.create(request).catch((caught: unknown) => caught);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(529);
    expect((error as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ error: { type: 'overloaded_error', message: 'Overloaded' } });
  });

  it('answers a non-streaming request with a message JSON body', async () => {
    upstream.messages.enqueue(scenario.messages().reasoning('plan').text('Done.').usage({ input: 5, output: 6, cachedInput: 2 }).finish('max_tokens'));
    const message = await sdk.client.messages.create(request);
    expect(message.content.map((block) => block.type)).toEqual(['thinking', 'text']);
    expect(message.stop_reason).toBe('max_tokens');
    expect(message.usage).toMatchObject({ input_tokens: 5, output_tokens: 6, cache_read_input_tokens: 2 });
  });

  it('records the request body and the anthropic headers exactly', async () => {
    upstream.messages.enqueue(scenario.messages().text('ok'));
    await collectEvents();
    expect(upstream.requests).toHaveLength(1);
    const recorded = upstream.requests[0];
    expect(recorded?.url).toBe('https://api.test/v1/messages');
    expect(recorded?.body).toEqual({ ...request, stream: true });
    // @anthropic-ai/sdk 1.14 sends the key as a bearer token.
    expect(recorded?.headers.authorization).toBe('Bearer sk-ant-test');
    expect(recorded?.headers['anthropic-version']).toBeDefined();
  });
});
