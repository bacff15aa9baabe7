import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { scenario } from '../scenario/builder.js';
import { MOCK_BASE_URL, useSdkUpstream } from './sdk-upstream.test-helper.js';

// Conformance oracle for Chat Completions: what the official openai SDK parses
// out of the testkit's wire (R7 wire fidelity, R4 cut streams, R5 usage, R1 errors).
const sdk = useSdkUpstream(() => new OpenAI({ apiKey: 'sk-test', baseURL: MOCK_BASE_URL, maxRetries: 0 }));
const { upstream } = sdk;

type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;

async function collectChunks(body: Record<string, unknown> = {}): Promise<Chunk[]> {
  const stream = await sdk.client.chat.completions.create({
    model: 'gpt-test',
    messages: [{ role: 'user', content: 'hi' }],
    stream: true,
    ...body,
  } as OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming);
  const chunks: Chunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

const joinDelta = (chunks: Chunk[], field: string): string =>
  chunks.map((chunk) => (chunk.choices[0]?.delta as Record<string, unknown> | undefined)?.[field] ?? '').join('');

describe('chat scenarios through the openai SDK (R7, R5)', () => {
  it('streams reasoning then text with a stop finish and usage', async () => {
    upstream.chat.enqueue(scenario.chat().reasoning(500).text('The answer is 42.').usage({ input: 10, output: 20, reasoning: 5 }));
    const chunks = await collectChunks();
    expect(joinDelta(chunks, 'reasoning_content')).toHaveLength(500);
    expect(joinDelta(chunks, 'content')).toBe('The answer is 42.');
    expect(chunks.some((chunk) => chunk.choices[0]?.finish_reason === 'stop')).toBe(true);
    expect(chunks.at(-1)?.usage).toEqual({
      prompt_tokens: 10,
      completion_tokens: 20,
      total_tokens: 30,
      completion_tokens_details: { reasoning_tokens: 5 },
    });
    expect(chunks.at(-1)?.choices).toEqual([]);
  });

  it('leaves usage really absent when the scenario has none', async () => {
    upstream.chat.enqueue(scenario.chat().text('Hi'));
    const chunks = await collectChunks();
    expect(chunks.every((chunk) => !('usage' in chunk))).toBe(true);
  });

  it('puts usage on the finish chunk in the DeepSeek dialect with `reasoning` field', async () => {
    upstream.chat.enqueue(
      scenario.chat().chatDialect({ reasoningField: 'reasoning', usagePlacement: 'finish-chunk' }).reasoning('hmm').text('ok').usage({ input: 1, output: 2 }),
    );
    const chunks = await collectChunks();
    expect(joinDelta(chunks, 'reasoning')).toBe('hmm');
    const last = chunks.at(-1);
    expect([last?.choices[0]?.finish_reason, last?.usage?.total_tokens]).toEqual(['stop', 3]);
  });

  it('streams parallel tool calls the SDK helper reassembles', async () => {
    upstream.chat.enqueue(
      scenario.chat().toolCall('get_weather', { city: 'Paris', unit: 'c' }, { id: 'call_A' }).toolCall('get_time', '{"tz":"UTC"}'),
    );
    const runner = sdk.client.chat.completions.stream({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });
    const completion = await runner.finalChatCompletion();
    const choice = completion.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    const calls = choice?.message.tool_calls?.map((call) => (call.type === 'function' ? [call.id, call.function.name, call.function.arguments] : []));
    expect(calls?.[0]).toEqual(['call_A', 'get_weather', '{"city":"Paris","unit":"c"}']);
    expect(calls?.[1]?.slice(1)).toEqual(['get_time', '{"tz":"UTC"}']);
  });

  it.each(['stop', 'length', 'tool_calls', 'content_filter'] as const)('ends with finish_reason %s', async (reason) => {
    upstream.chat.enqueue(scenario.chat().text('x').finish(reason));
    const chunks = await collectChunks();
    expect(chunks.map((chunk) => chunk.choices[0]?.finish_reason).filter(Boolean)).toEqual([reason]);
  });

  it('EOF after reasoning ends the create() stream silently with no finish_reason (R4.1)', async () => {
    upstream.chat.enqueue(scenario.chat().reasoning(4000).eof());
    const chunks = await collectChunks();
    expect(joinDelta(chunks, 'reasoning_content')).toHaveLength(4000);
    expect(chunks.every((chunk) => chunk.choices[0]?.finish_reason === null)).toBe(true);
  });

  it('EOF makes chat.completions.stream() throw missing finish_reason', async () => {
    upstream.chat.enqueue(scenario.chat().text('partial answer').eof({ afterEvents: 2 }));
    const runner = sdk.client.chat.completions.stream({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });
    await expect(runner.finalChatCompletion()).rejects.toThrow(/missing finish_reason/);
  });

  it('a tool call cut mid-arguments carries only the first characters', async () => {
    upstream.chat.enqueue(scenario.chat().toolCall('write_file', '{"path":"a.txt","content":"hello"}', { cutAtChar: 15 }));
    const chunks = await collectChunks();
    const args = chunks.map((chunk) => chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? '').join('');
    expect(args).toBe('{"path":"a.txt"');
    expect(chunks.every((chunk) => chunk.choices[0]?.finish_reason === null)).toBe(true);
  });

  it('an in-stream error chunk becomes an APIError after the content before it (R2.1)', async () => {
    upstream.chat.enqueue(scenario.chat().text('Hello there').streamError({ message: 'boom', type: 'server_error' }));
    const seen: string[] = [];
    const stream = await sdk.client.chat.completions.create({ model: 'm', messages: [], stream: true });
    const consume = async (): Promise<void> => {
      for await (const chunk of stream) seen.push(chunk.choices[0]?.delta.content ?? '');
    };
    const error = await consume().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).message).toContain('boom');
    expect(seen.join('')).toBe('Hello there');
  });

  it('a 429 with retry-after reaches the SDK as RateLimitError with the header and request id (R1.3)', async () => {
    upstream.chat.enqueue(scenario.chat().httpError(429, { headers: { 'retry-after': '2', 'x-should-retry': 'true' } }));
    const error = await sdk.client.chat.completions.create({ model: 'm', messages: [] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    const apiError = error as InstanceType<typeof OpenAI.RateLimitError>;
    expect(apiError.status).toBe(429);
    expect(apiError.headers.get('retry-after')).toBe('2');
    expect(apiError.headers.get('x-should-retry')).toBe('true');
    expect(apiError.requestID).toMatch(/^req_/);
    expect(apiError.code).toBe('rate_limit_exceeded');
  });

  it('answers a non-streaming request with a chat.completion JSON body', async () => {
    upstream.chat.enqueue(scenario.chat().reasoning('think').text('Hi!').usage({ input: 3, output: 4 }).finish('length'));
    const completion = await sdk.client.chat.completions.create({ model: 'gpt-x', messages: [{ role: 'user', content: 'q' }] });
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('gpt-x');
    expect(completion.choices[0]?.message.content).toBe('Hi!');
    expect((completion.choices[0]?.message as unknown as Record<string, unknown>).reasoning_content).toBe('think');
    expect(completion.choices[0]?.finish_reason).toBe('length');
    expect(completion.usage?.total_tokens).toBe(7);
  });

  it('records count, parsed body, raw text and headers of every request exactly', async () => {
    upstream.chat.enqueue(scenario.chat().text('a'), scenario.chat().text('b'));
    await collectChunks({ stream_options: { include_usage: true } });
    await collectChunks({ temperature: 0 });
    expect(upstream.requests).toHaveLength(2);
    const [first, second] = upstream.requests;
    expect(first?.protocol).toBe('chat');
    expect(first?.url).toBe('https://api.test/v1/chat/completions');
    expect(first?.body).toEqual({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } });
    expect(JSON.parse(second?.bodyText ?? '')).toEqual(second?.body);
    expect(second?.headers.authorization).toBe('Bearer sk-test');
    expect(second?.headers['content-type']).toBe('application/json');
    expect(upstream.requestsFor('messages')).toEqual([]);
  });

  it('fails loudly with HTTP 500 when no scenario is queued', async () => {
    const error = await sdk.client.chat.completions.create({ model: 'm', messages: [] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect((error as Error).message).toContain('no scenario queued for the chat route');
  });
});
