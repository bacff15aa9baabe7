import Anthropic from '@anthropic-ai/sdk';
import { scenario } from '@turnguard/testkit';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TURN_HEADERS } from './forward/turn-disclosure.js';
import { startHarness, type Harness } from './testing/gateway-harness.test-helper.js';

// R12.4: the client is told how many physical requests the turn took, whether it recovered (or fell
// back) and whether its usage is complete: headers on JSON answers, an SSE comment before a stream's end.
let harness: Harness;
/** Every body the SDKs read, as text, beside what they parsed out of it. */
let wire: string[];

/** A fetch that hands the SDK the response and keeps a copy of its bytes. */
const recordingFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  wire.push(await response.clone().text());
  return response;
};

beforeEach(async () => {
  harness = await startHarness();
  wire = [];
});
afterEach(async () => {
  await harness.close();
});

function headersOf(response: Response): Record<string, string | null> {
  return Object.fromEntries(Object.values(TURN_HEADERS).map((name) => [name, response.headers.get(name)]));
}

function postChat(stream: boolean): Promise<Response> {
  return fetch(`${harness.openAiBaseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-client' },
    body: JSON.stringify({ model: 'gpt-test', stream, messages: [{ role: 'user', content: 'hi' }] }),
  });
}

/** The one turn comment of a stream, and the record right after it. */
function commentOf(body: string): { comment: string; next: string } {
  const comments = body.match(/^: turnguard .*$/gm) ?? [];
  expect(comments).toHaveLength(1);
  const after = body.slice(body.indexOf(comments[0]!) + comments[0]!.length).replace(/^\n\n/, '');
  // Nothing but the protocol's last record follows it.
  expect(after.replace(/\n\n$/, '')).not.toMatch(/\n\n/);
  return { comment: comments[0]!, next: after };
}

describe('headers on JSON answers (R12.4)', () => {
  it('a fault-free answer: one physical request, not recovered, no fallback, answered by the model asked, no continuation, complete usage', async () => {
    harness.upstream.chat.enqueue(scenario.chat().text('Hello').usage({ input: 3, output: 1 }));
    const response = await postChat(false);
    expect(response.status).toBe(200);
    expect(headersOf(response)).toEqual({
      'x-turnguard-physical-requests': '1',
      'x-turnguard-recovered': 'false',
      'x-turnguard-fallback': 'false',
      'x-turnguard-fallback-moves': null,
      'x-turnguard-answered-by': 'gpt-test',
      'x-turnguard-continued': 'false',
      'x-turnguard-usage-complete': 'true',
    });
  });

  it('a retried answer counts every physical request; usage without a report is not complete (R5.2)', async () => {
    harness.upstream.chat.enqueue(scenario.chat().httpError(503), scenario.chat().httpError(500), scenario.chat().text('third'));
    const response = await postChat(false);
    await response.text();
    expect(headersOf(response)).toMatchObject({ 'x-turnguard-physical-requests': '3', 'x-turnguard-usage-complete': 'false' });
  });

  it('a failure answered as JSON carries them too', async () => {
    harness.upstream.chat.enqueue(scenario.chat().httpError(400));
    const response = await postChat(true);
    expect(response.status).toBe(400);
    expect(headersOf(response)).toMatchObject({ 'x-turnguard-physical-requests': '1', 'x-turnguard-recovered': 'false' });
  });

  it('a recovered non-streaming Messages answer says so', async () => {
    harness.upstream.messages.enqueue(scenario.messages().reasoning(300).usage({ input: 7, output: 1 }).eof(), scenario.messages().text('Recovered.').usage({ input: 7, output: 3 }));
    const response = await fetch(`${harness.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'claude-test', max_tokens: 4096, messages: [{ role: 'user', content: 'think' }] }),
    });
    expect(response.status).toBe(200);
    expect(headersOf(response)).toMatchObject({ 'x-turnguard-physical-requests': '2', 'x-turnguard-recovered': 'true' });
  });
});

describe('the SSE comment before the end, read by the official SDKs unchanged (R12.4)', () => {
  it('openai chat: the chunks the SDK yields are the answer; the comment sits just before [DONE]', async () => {
    harness.upstream.chat.enqueue(scenario.chat().text('Hello there').usage({ input: 3, output: 2 }));
    const client = new OpenAI({ apiKey: 'sk-client', baseURL: harness.openAiBaseUrl, fetch: recordingFetch, maxRetries: 0 });
    const stream = await client.chat.completions.create({ model: 'gpt-test', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'hi' }] });
    let text = '';
    let usage: unknown;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe('Hello there');
    expect(usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 2 });
    const { comment, next } = commentOf(wire[0]!);
    expect(comment).toBe(': turnguard physical-requests=1 recovered=false fallback=false answered-by=gpt-test continued=false usage-complete=true');
    expect(next).toBe('data: [DONE]\n\n');
  });

  it('anthropic messages, recovered: the SDK builds the one message; the comment before message_stop says recovered', async () => {
    harness.upstream.messages.enqueue(scenario.messages().reasoning(300).usage({ input: 7, output: 1 }).eof(), scenario.messages().text('Recovered conclusion.').usage({ input: 7, output: 3 }));
    const client = new Anthropic({ apiKey: 'sk-ant', baseURL: harness.url, fetch: recordingFetch, maxRetries: 0 });
    const message = await client.messages.stream({ model: 'claude-test', max_tokens: 4096, messages: [{ role: 'user', content: 'think' }] }).finalMessage();
    expect(message.stop_reason).toBe('end_turn');
    expect(message.content.filter((block) => block.type === 'text').map((block) => (block as { text: string }).text)).toEqual(['Recovered conclusion.']);
    const { comment, next } = commentOf(wire[0]!);
    await harness.sink.waitForTurns(1);
    const turn = harness.sink.turns[0]!;
    expect(turn).toMatchObject({ physicalRequests: 2, recovered: true });
    expect(comment).toBe(`: turnguard physical-requests=2 recovered=true fallback=false answered-by=claude-test continued=false usage-complete=${turn.usageComplete}`);
    expect(next).toMatch(/^event: message_stop\n/);
  });

  it('openai responses: finalResponse is the upstream’s; the comment before the terminal event', async () => {
    harness.upstream.responses.enqueue(scenario.responses().text('Answer.').usage({ input: 4, output: 1 }));
    const client = new OpenAI({ apiKey: 'sk-client', baseURL: harness.openAiBaseUrl, fetch: recordingFetch, maxRetries: 0 });
    const response = await client.responses.stream({ model: 'gpt-test', input: 'hi' }).finalResponse();
    expect(response.output_text).toBe('Answer.');
    const { comment, next } = commentOf(wire[0]!);
    expect(comment).toBe(': turnguard physical-requests=1 recovered=false fallback=false answered-by=gpt-test continued=false usage-complete=true');
    expect(next).toMatch(/^event: response\.completed\n/);
  });

  it('a stream that fails after output: the comment before the protocol’s error ending, the SDK raises the error', async () => {
    harness.upstream.chat.enqueue(scenario.chat().text('partial words that get cut').eof({ afterEvents: 2 }));
    const client = new OpenAI({ apiKey: 'sk-client', baseURL: harness.openAiBaseUrl, fetch: recordingFetch, maxRetries: 0 });
    const stream = await client.chat.completions.create({ model: 'gpt-test', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const failure = await (async () => {
      for await (const _chunk of stream) {
        // read until the error
      }
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    const { comment, next } = commentOf(wire[0]!);
    expect(comment).toMatch(/^: turnguard physical-requests=1 recovered=false /);
    expect(next).toBe('data: [DONE]\n\n');
  });
});
