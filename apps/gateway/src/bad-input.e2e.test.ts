import OpenAI from 'openai';
import { scenario } from '@turnguard/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './testing/gateway-harness.test-helper.js';

let harness: Harness;

beforeEach(async () => {
  harness = await startHarness({ maxBodyBytes: 1024 });
});
afterEach(async () => {
  await harness.close();
});

function post(path: string, body: string, headers: Record<string, string> = { authorization: 'Bearer k' }): Promise<Response> {
  return fetch(`${harness.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
}

async function expectServerUp(): Promise<void> {
  const health = await fetch(`${harness.url}/healthz`);
  expect(health.status).toBe(200);
  expect(await health.json()).toEqual({ status: 'ok' });
}

describe('bad input gets a clear 4xx in the protocol\'s own error shape; the server stays up', () => {
  it('malformed JSON → 400, OpenAI shape on Chat and Responses, Anthropic shape on Messages', async () => {
    for (const path of ['/v1/chat/completions', '/v1/responses']) {
      const response = await post(path, '{"model": "m", ');
      expect(response.status).toBe(400);
      expect(response.headers.get('x-should-retry')).toBe('false');
      expect(await response.json()).toEqual({
        error: { message: 'The request body is not valid JSON.', type: 'invalid_request_error', param: null, code: 'GATEWAY_MALFORMED_JSON' },
      });
    }
    const messages = await post('/v1/messages', 'not json', { 'x-api-key': 'k' });
    expect(messages.status).toBe(400);
    expect(await messages.json()).toEqual({ type: 'error', error: { type: 'invalid_request_error', message: 'The request body is not valid JSON.' } });
    const notObject = await post('/v1/chat/completions', '[1,2]');
    expect(notObject.status).toBe(400);
    expect(harness.upstream.requests).toHaveLength(0);
    await expectServerUp();
  });

  it('an oversized body → 413 before anything is sent upstream', async () => {
    const big = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x'.repeat(5000) }] });
    const response = await post('/v1/chat/completions', big);
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: { code: 'GATEWAY_BODY_TOO_LARGE' } });
    expect(harness.upstream.requests).toHaveLength(0);
    await expectServerUp();
  });

  it('an oversized chunked body (no content-length) → 413 too', async () => {
    const parts = [new TextEncoder().encode('{"model":"m","messages":[{"role":"user","content":"'), new TextEncoder().encode('y'.repeat(4000)), new TextEncoder().encode('"}]}')];
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = parts.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(next);
      },
    });
    const response = await fetch(`${harness.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    await expectServerUp();
  });

  it('R8.8 other paths and methods are the upstream’s to answer: its 404 comes back as it sent it', async () => {
    const unknown = await post('/v1/embeddings', '{}');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { message: 'testkit: no route for POST /v1/embeddings' } });
    const get = await fetch(`${harness.url}/v1/messages`, { headers: { 'anthropic-version': '2023-06-01' } });
    expect(get.status).toBe(404);
    expect(await get.json()).toMatchObject({ error: { message: 'testkit: no route for GET /v1/messages' } });
    await expectServerUp();
  });

  it('R8.5 missing credentials (no header, nothing in the environment) → 401 naming where a key can come from', async () => {
    const response = await post('/v1/chat/completions', JSON.stringify({ model: 'm', messages: [] }), {});
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: { type: 'authentication_error', code: 'GATEWAY_MISSING_CREDENTIALS', message: expect.stringContaining('OPENAI_API_KEY') } });
    const messages = await post('/v1/messages', JSON.stringify({ model: 'm', max_tokens: 10, messages: [] }), {});
    expect(await messages.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error', message: expect.stringContaining('ANTHROPIC_API_KEY') } });
    expect(harness.upstream.requests).toHaveLength(0);
    await expectServerUp();
  });

  it('R8.5 the environment key is used when the client sends none, and never appears in stats', async () => {
    await harness.close();
    harness = await startHarness({ env: { OPENAI_API_KEY: 'sk-from-env' } });
    harness.upstream.chat.enqueue(scenario.chat().text('ok'));
    const response = await post('/v1/chat/completions', JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'q' }] }), {});
    expect(response.status).toBe(200);
    expect(harness.upstream.requests[0]?.headers.authorization).toBe('Bearer sk-from-env');
    await harness.sink.waitForTurns(1);
    expect(JSON.stringify([harness.sink.samples, harness.sink.turns])).not.toContain('sk-from-env');
  });

  it('the SDK sees a typed error for bad input and the next request still works', async () => {
    const client = new OpenAI({ apiKey: 'k', baseURL: `${harness.url}/v1`, maxRetries: 0 });
    const tooBig = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'z'.repeat(4000) }] }).catch((error: unknown) => error);
    expect(tooBig).toBeInstanceOf(OpenAI.APIError);
    expect((tooBig as InstanceType<typeof OpenAI.APIError>).status).toBe(413);
    harness.upstream.chat.enqueue(scenario.chat().text('still up'));
    const completion = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'q' }] });
    expect(completion.choices[0]?.message.content).toBe('still up');
  });
});
