import OpenAI from 'openai';
import { RECOVERY_INSTRUCTION } from '@turnguard/core';
import { scenario } from '@turnguard/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readSseRecords, startHarness, type Harness } from './testing/gateway-harness.test-helper.js';
import { metricValue } from './testing/metric-value.test-helper.js';

// Real sockets end to end: openai SDK → gateway (node:http) → testkit loopback upstream. No msw here.
let harness: Harness;
let client: OpenAI;

beforeEach(async () => {
  harness = await startHarness();
  client = new OpenAI({ apiKey: 'sk-client', baseURL: harness.openAiBaseUrl });
});
afterEach(async () => {
  await harness.close();
});

const ask = { model: 'gpt-test', messages: [{ role: 'user' as const, content: 'think hard' }] };

async function consumeChat(stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>) {
  let text = '';
  let reasoning = '';
  const finishes: string[] = [];
  const ids = new Set<string>();
  for await (const chunk of stream) {
    ids.add(chunk.id);
    const delta = chunk.choices[0]?.delta as { content?: string | null; reasoning_content?: string } | undefined;
    text += delta?.content ?? '';
    reasoning += delta?.reasoning_content ?? '';
    const finish = chunk.choices[0]?.finish_reason;
    if (finish) finishes.push(finish);
  }
  return { text, reasoning, finishes, ids };
}

describe('R8 gateway × openai chat.completions (streaming)', () => {
  it('R8.2 relays a normal stream as one response and passes the client key through (R8.5)', async () => {
    harness.upstream.chat.enqueue(scenario.chat().reasoning(40).text('Hello there friend').usage({ input: 3, output: 5 }));
    const seen = await consumeChat(await client.chat.completions.create({ ...ask, stream: true }));
    expect(seen.text).toBe('Hello there friend');
    expect(seen.finishes).toEqual(['stop']);
    expect(seen.ids.size).toBe(1);
    expect(harness.upstream.requests).toHaveLength(1);
    expect(harness.upstream.requests[0]?.headers.authorization).toBe('Bearer sk-client');
    await harness.sink.waitForTurns(1);
    expect(harness.sink.turns[0]).toMatchObject({ protocol: 'chat', outcome: 'ok', physicalRequests: 1 });
  });

  it('R4.1 a reasoning-only cut is recovered: one logical response, the recovered text once, finish stop, two samples (R6)', async () => {
    harness.upstream.chat.enqueue(scenario.chat().reasoning(300).eof(), scenario.chat().text('The answer is 42.').usage({ input: 9, output: 4 }));
    const seen = await consumeChat(await client.chat.completions.create({ ...ask, stream: true, stream_options: { include_usage: true } }));
    expect(seen.text).toBe('The answer is 42.');
    expect(seen.finishes).toEqual(['stop']);
    expect(seen.ids.size).toBe(1);
    expect(seen.reasoning.length).toBeGreaterThan(0);
    expect(harness.upstream.requests).toHaveLength(2);
    expect(harness.upstream.requests[1]?.bodyText).toContain(RECOVERY_INSTRUCTION);
    await harness.sink.waitForTurns(1);
    expect(harness.sink.samples.map((sample) => [sample.attempt, sample.ok, sample.recoveryScheduled, sample.recovered])).toEqual([
      [0, false, true, false],
      [1, true, true, true],
    ]);
    expect(harness.sink.turns[0]).toMatchObject({ outcome: 'ok', recovered: true, physicalRequests: 2 });
    const metrics = harness.gateway.metrics;
    expect(await metricValue(metrics, 'turnguard_recoveries_total', { protocol: 'chat', result: 'recovered' })).toBe(1);
    expect(await metricValue(metrics, 'turnguard_physical_requests_total', { protocol: 'chat', result: 'failed' })).toBe(1);
  });

  it('R8.3 text already out then a cut: an error event then [DONE], never a fake stop; no recovery request', async () => {
    harness.upstream.chat.enqueue(scenario.chat().text('partial answer that gets cut').eof({ afterEvents: 3 }));
    const stream = await client.chat.completions.create({ ...ask, stream: true });
    const failure = await consumeChat(stream).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect((failure as InstanceType<typeof OpenAI.APIError>).code).toBe('STREAM_CUT');
    expect(harness.upstream.requests).toHaveLength(1);

    harness.upstream.chat.enqueue(scenario.chat().text('partial answer that gets cut').eof({ afterEvents: 3 }));
    const raw = await fetch(`${harness.openAiBaseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: JSON.stringify({ ...ask, stream: true }),
    });
    const records = await readSseRecords(raw);
    expect(raw.status).toBe(200);
    expect(records.at(-1)?.data).toBe('[DONE]');
    expect(JSON.parse(records.at(-2)!.data)).toMatchObject({ error: { code: 'STREAM_CUT' } });
    expect(records.some((record) => record.data.includes('"finish_reason":"stop"'))).toBe(false);
  });

  it('R4.2 a cut inside a tool call is not recovered and ends as STREAM_CUT', async () => {
    harness.upstream.chat.enqueue(scenario.chat().reasoning(100).toolCall('get_weather', { city: 'Paris' }, { cutAtChar: 6 }));
    const failure = await consumeChat(await client.chat.completions.create({ ...ask, stream: true })).catch((error: unknown) => error);
    expect((failure as InstanceType<typeof OpenAI.APIError>).code).toBe('STREAM_CUT');
    expect(harness.upstream.requests).toHaveLength(1);
  });

  it('R4.2 a terminal frame is relayed as is (length), with no recovery', async () => {
    harness.upstream.chat.enqueue(scenario.chat().reasoning(100).finish('length'));
    const seen = await consumeChat(await client.chat.completions.create({ ...ask, stream: true }));
    expect(seen.finishes).toEqual(['length']);
    expect(seen.text).toBe('');
    expect(harness.upstream.requests).toHaveLength(1);
  });

  it('R1.3 a 429 with retry-after-ms is retried by the gateway; the client sees only the success', async () => {
    harness.upstream.chat.enqueue(scenario.chat().httpError(429, { headers: { 'retry-after-ms': '1' } }), scenario.chat().text('after the wait'));
    const seen = await consumeChat(await client.chat.completions.create({ ...ask, stream: true }));
    expect(seen.text).toBe('after the wait');
    expect(harness.upstream.requests).toHaveLength(2);
    expect(await metricValue(harness.gateway.metrics, 'turnguard_retries_total', { protocol: 'chat', code: 'RATE_LIMIT' })).toBe(1);
  });

  it('a 400 before any output keeps its status and the OpenAI error shape', async () => {
    harness.upstream.chat.enqueue(scenario.chat().httpError(400, { message: 'bad field', type: 'invalid_request_error' }));
    const failure = await client.chat.completions.create({ ...ask, stream: true }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.BadRequestError);
    expect(harness.upstream.requests).toHaveLength(1);
  });

  it('R8.4 a client that disconnects mid-stream aborts the segment and no recovery request is sent', async () => {
    harness.upstream.chat.enqueue(scenario.chat().reasoning(2000).eof().delay(1));
    const stream = await client.chat.completions.create({ ...ask, stream: true });
    for await (const _chunk of stream) break;
    await harness.sink.waitForTurns(1);
    expect(harness.sink.turns[0]).toMatchObject({ outcome: 'aborted', errorCode: 'ABORTED', physicalRequests: 1 });
    expect(harness.upstream.requests).toHaveLength(1);
  });
});

describe('R8 gateway × openai chat.completions (non-streaming)', () => {
  it('R5.2 carries the upstream usage, as OpenAI’s non-streaming chat.completion always does', async () => {
    harness.upstream.chat.enqueue(scenario.chat().text('Hello there friend').usage({ input: 3, output: 5 }));
    const completion = await client.chat.completions.create(ask);
    expect(completion.choices[0]?.message.content).toBe('Hello there friend');
    expect(completion.usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 });
  });

  it('answers a recovered turn with one chat.completion JSON body', async () => {
    harness.upstream.chat.enqueue(scenario.chat().reasoning(300).eof(), scenario.chat().text('Recovered answer.').usage({ input: 5, output: 3 }));
    const completion = await client.chat.completions.create(ask);
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0]?.message.content).toBe('Recovered answer.');
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(harness.upstream.requests).toHaveLength(2);
  });

  it('R8.3 a final failure after partial text is a JSON 502 the SDK does not resend (x-should-retry: false)', async () => {
    // Each cut answer is restarted for a JSON client, which was shown none of it (decision 0430): the budget's 5 attempts.
    for (let attempt = 0; attempt < 5; attempt += 1) harness.upstream.chat.enqueue(scenario.chat().text('partial text then a cut').eof({ afterEvents: 3 }));
    const failure = await client.chat.completions.create(ask).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect((failure as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((failure as InstanceType<typeof OpenAI.APIError>).code).toBe('STREAM_CUT');
    expect(harness.upstream.requests).toHaveLength(5);
  });

  it('returns tool calls with finish_reason tool_calls', async () => {
    harness.upstream.chat.enqueue(scenario.chat().toolCall('get_weather', { city: 'Paris' }, { id: 'call_1' }));
    const completion = await client.chat.completions.create(ask);
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
    expect(completion.choices[0]?.message.tool_calls).toEqual([
      { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
    ]);
  });
});
