import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { scenario } from '../scenario/builder.js';
import { MOCK_BASE_URL, useSdkUpstream } from './sdk-upstream.test-helper.js';

// Conformance oracle for OpenAI Responses: what the official openai SDK parses
// out of the testkit's wire (R7 wire fidelity, R4 cut streams, R5 usage, R1 errors).
const sdk = useSdkUpstream(() => new OpenAI({ apiKey: 'sk-test', baseURL: MOCK_BASE_URL, maxRetries: 0 }));
const { upstream } = sdk;

type Event = OpenAI.Responses.ResponseStreamEvent;

async function collectEvents(): Promise<Event[]> {
  const stream = await sdk.client.responses.create({ model: 'gpt-test', input: 'hi', stream: true });
  const events: Event[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('responses scenarios through the openai SDK (R7, R5)', () => {
  it('streams a reasoning summary then text, completed with usage', async () => {
    upstream.responses.enqueue(scenario.responses().reasoning(800).text('Final: 570').usage({ input: 299, output: 12, reasoning: 4 }));
    const response = await sdk.client.responses.stream({ model: 'gpt-test', input: 'hi' }).finalResponse();
    expect(response.status).toBe('completed');
    expect(response.output_text).toBe('Final: 570');
    const reasoning = response.output[0];
    expect(reasoning?.type === 'reasoning' ? reasoning.summary[0]?.text.length : undefined).toBe(800);
    expect(response.usage).toEqual({ input_tokens: 299, output_tokens: 12, output_tokens_details: { reasoning_tokens: 4 }, total_tokens: 311 });
  });

  it('numbers sequence_number without gaps and leaves usage absent on the terminal response', async () => {
    upstream.responses.enqueue(scenario.responses().text('Hello world'));
    const events = await collectEvents();
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    const done = events.at(-1);
    expect(done?.type).toBe('response.completed');
    expect(done?.type === 'response.completed' && 'usage' in done.response).toBe(false);
  });

  it('streams a function call whose arguments the SDK reassembles', async () => {
    upstream.responses.enqueue(scenario.responses().toolCall('calculator', { a: 19, b: 3, op: 'multiply' }, { id: 'call_Q6' }));
    const response = await sdk.client.responses.stream({ model: 'gpt-test', input: 'hi' }).finalResponse();
    const call = response.output[0];
    expect(call?.type === 'function_call' ? [call.call_id, call.name, call.arguments] : []).toEqual([
      'call_Q6',
      'calculator',
      '{"a":19,"b":3,"op":"multiply"}',
    ]);
    expect(response.status).toBe('completed');
  });

  it.each(['max_output_tokens', 'content_filter'] as const)('ends with response.incomplete (%s)', async (reason) => {
    upstream.responses.enqueue(scenario.responses().text('Hello,').finish(`incomplete:${reason}`));
    const events = await collectEvents();
    const last = events.at(-1);
    expect(last?.type).toBe('response.incomplete');
    expect(last?.type === 'response.incomplete' ? last.response.incomplete_details?.reason : undefined).toBe(reason);
    expect(last?.type === 'response.incomplete' ? (last.response.output[0] as { status?: string } | undefined)?.status : undefined).toBe('incomplete');
  });

  it('EOF after reasoning: create() ends silently, stream().finalResponse() resolves in_progress (R4.1)', async () => {
    upstream.responses.enqueue(scenario.responses().reasoning(1000).eof(), scenario.responses().text('partial text').eof());
    const events = await collectEvents();
    expect(events.some((event) => event.type === 'response.completed' || event.type === 'response.incomplete')).toBe(false);
    const summary = events.map((event) => (event.type === 'response.reasoning_summary_text.delta' ? event.delta : '')).join('');
    expect(summary).toHaveLength(1000);
    const response = await sdk.client.responses.stream({ model: 'gpt-test', input: 'hi' }).finalResponse();
    expect(response.status).toBe('in_progress');
  });

  it('an `error` event then response.failed reaches the SDK as APIError with the code (R2.1)', async () => {
    upstream.responses.enqueue(scenario.responses().text('Hi').streamError({ code: 'insufficient_quota', message: 'You exceeded your current quota' }));
    const error = await collectEvents().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe('insufficient_quota');
  });

  it('a failed-only stream ends with response.failed carrying error and null usage', async () => {
    upstream.responses.enqueue(scenario.responses().streamError({ code: 'rate_limit_exceeded', message: 'Please try again in 11.054s.', responsesForm: 'failed-only' }));
    const events = await collectEvents();
    const last = events.at(-1);
    expect(last?.type).toBe('response.failed');
    expect(last?.type === 'response.failed' ? [last.response.error?.code, last.response.usage] : []).toEqual(['rate_limit_exceeded', null]);
  });

  it('a 429 with retry-after-ms reaches the SDK as RateLimitError with the header (R1.3)', async () => {
    upstream.responses.enqueue(scenario.responses().httpError(429, { headers: { 'retry-after-ms': '1500' } }));
    const error = await sdk.client.responses.create({ model: 'm', input: 'x' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect((error as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after-ms')).toBe('1500');
  });

  it('answers a non-streaming request with the final response object', async () => {
    upstream.responses.enqueue(scenario.responses().text('Plain').usage({ input: 1, output: 1, cachedInput: 0 }));
    const response = await sdk.client.responses.create({ model: 'gpt-x', input: 'x' });
    expect([response.object, response.status, response.model, response.output_text]).toEqual(['response', 'completed', 'gpt-x', 'Plain']);
    expect(response.usage?.input_tokens_details).toEqual({ cached_tokens: 0 });
  });

  it('records each request on its own route', async () => {
    upstream.responses.enqueue(scenario.responses().text('a'));
    await collectEvents();
    expect(upstream.requestsFor('responses').map((request) => [request.url, request.body])).toEqual([
      ['https://api.test/v1/responses', { model: 'gpt-test', input: 'hi', stream: true }],
    ]);
  });
});
