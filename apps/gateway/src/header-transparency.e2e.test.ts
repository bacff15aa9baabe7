import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { scenario } from '@turnguard/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './testing/gateway-harness.test-helper.js';

// R8.6: the gateway is invisible to a client except where it recovers. Real sockets both
// ways; the loopback upstream records the physical requests it got.
let harness: Harness;

beforeEach(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness.close();
});

const UPSTREAM_HEADERS = { 'x-request-id': 'req_upstream_1', 'request-id': 'req_anthropic_1', 'x-ratelimit-remaining-requests': '41', 'anthropic-ratelimit-tokens-remaining': '9000', 'openai-processing-ms': '17' };

function postRaw(path: string, body: Record<string, unknown>, headers: Record<string, string>): Promise<Response> {
  return fetch(`${harness.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

describe('R8.6 request headers reach the upstream unchanged', () => {
  it('messages: a Bearer token stays Bearer, anthropic-version and Claude Code headers are the client’s; no x-api-key is added', async () => {
    harness.upstream.messages.enqueue(scenario.messages().text('ok'));
    const clientHeaders = {
      authorization: 'Bearer sk-ant-oat-token',
      'anthropic-version': '2024-10-22',
      'anthropic-beta': 'interleaved-thinking-2025-05-14',
      'user-agent': 'claude-cli/2.0.0 (external, cli)',
      'x-app': 'cli',
      'x-claude-code-session-id': 'sess-123',
      'x-stainless-retry-count': '0',
    };
    const response = await postRaw('/v1/messages', { model: 'claude-test', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hi' }] }, clientHeaders);
    await response.text();
    const sent = harness.upstream.requests[0]!.headers;
    expect(sent).toMatchObject(clientHeaders);
    expect(sent).not.toHaveProperty('x-api-key');
  });

  it('the client’s query string reaches the upstream on a recovery route (Claude Code’s ?beta=true)', async () => {
    harness.upstream.messages.enqueue(scenario.messages().text('ok'));
    const response = await postRaw('/v1/messages?beta=true', { model: 'claude-test', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hi' }] }, { 'x-api-key': 'sk-ant-client' });
    await response.text();
    expect(response.status).toBe(200);
    const sent = new URL(harness.upstream.requests[0]!.url, 'http://upstream.invalid');
    expect(sent.pathname).toBe('/v1/messages');
    expect(sent.search).toBe('?beta=true');
  });

  it('chat: Codex’s session headers and the client’s user-agent reach the upstream', async () => {
    harness.upstream.chat.enqueue(scenario.chat().text('ok'));
    const clientHeaders = { authorization: 'Bearer sk-codex', 'user-agent': 'codex_exec/0.50.0', originator: 'codex_exec', 'session-id': 's-9', 'x-client-request-id': 'c-1', 'x-codex-turn-state': 't', 'openai-organization': 'org-1' };
    await (await postRaw('/v1/chat/completions', { model: 'gpt-test', stream: true, messages: [{ role: 'user', content: 'hi' }] }, clientHeaders)).text();
    expect(harness.upstream.requests[0]!.headers).toMatchObject(clientHeaders);
  });

  it('with no client key the environment’s goes in the protocol’s usual header', async () => {
    await harness.close();
    harness = await startHarness({ env: { ANTHROPIC_API_KEY: 'sk-ant-env' } });
    harness.upstream.messages.enqueue(scenario.messages().text('ok'));
    await (await postRaw('/v1/messages', { model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }, {})).text();
    expect(harness.upstream.requests[0]!.headers['x-api-key']).toBe('sk-ant-env');
  });
});

describe('R8.6 upstream response headers reach the client', () => {
  for (const stream of [true, false]) {
    it(`chat (${stream ? 'SSE' : 'JSON'}): request id, rate limits and processing time; the SDK's request_id is the upstream's`, async () => {
      harness.upstream.chat.enqueue(scenario.chat().text('hello').headers(UPSTREAM_HEADERS));
      const response = await postRaw('/v1/chat/completions', { model: 'gpt-test', stream, messages: [{ role: 'user', content: 'hi' }] }, { authorization: 'Bearer k' });
      await response.text();
      for (const [name, value] of Object.entries(UPSTREAM_HEADERS)) expect(response.headers.get(name), name).toBe(value);

      harness.upstream.chat.enqueue(scenario.chat().text('hello').headers(UPSTREAM_HEADERS));
      const client = new OpenAI({ apiKey: 'k', baseURL: harness.openAiBaseUrl, maxRetries: 0 });
      const { request_id } = await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
      expect(request_id).toBe('req_upstream_1');
    });
  }

  it('messages: the SDK’s _request_id is the upstream’s request-id, streaming and not', async () => {
    const client = new Anthropic({ apiKey: 'k', baseURL: harness.url, maxRetries: 0 });
    const ask = { model: 'claude-test', max_tokens: 64, messages: [{ role: 'user' as const, content: 'hi' }] };
    harness.upstream.messages.enqueue(scenario.messages().text('hello').headers(UPSTREAM_HEADERS));
    expect((await client.messages.create(ask))._request_id).toBe('req_anthropic_1');
    harness.upstream.messages.enqueue(scenario.messages().text('hello').headers(UPSTREAM_HEADERS));
    const { response } = await client.messages.create({ ...ask, stream: true }).withResponse();
    expect(response.headers.get('request-id')).toBe('req_anthropic_1');
    expect(response.headers.get('anthropic-ratelimit-tokens-remaining')).toBe('9000');
  });
});

describe('R8.6 an upstream error that is not recovered reaches the client byte for byte', () => {
  const openAiBody = '{"error":{"message":"This model\'s maximum context length is 8192 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}';
  const anthropicBody = '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 250000 tokens > 200000 maximum"},"request_id":"req_011"}';

  it('chat 400: same status, bytes and headers as direct; the SDK’s code, param and requestID equal the direct ones', async () => {
    const direct = new OpenAI({ apiKey: 'k', baseURL: harness.upstream.baseUrl, maxRetries: 0 });
    const viaGateway = new OpenAI({ apiKey: 'k', baseURL: harness.openAiBaseUrl, maxRetries: 0 });
    const ask = { model: 'gpt-test', stream: true as const, messages: [{ role: 'user' as const, content: 'hi' }] };
    const failures: Array<InstanceType<typeof OpenAI.APIError>> = [];
    for (const client of [direct, viaGateway]) {
      harness.upstream.chat.enqueue(scenario.chat().httpError(400, { body: JSON.parse(openAiBody), headers: { 'x-request-id': 'req_400' } }));
      failures.push((await client.chat.completions.create(ask).catch((error: unknown) => error)) as InstanceType<typeof OpenAI.APIError>);
    }
    const [directError, gatewayError] = failures;
    expect(gatewayError).toBeInstanceOf(OpenAI.BadRequestError);
    expect({ status: gatewayError!.status, code: gatewayError!.code, param: gatewayError!.param, message: gatewayError!.message, requestID: gatewayError!.requestID }).toEqual({
      status: directError!.status,
      code: directError!.code,
      param: directError!.param,
      message: directError!.message,
      requestID: directError!.requestID,
    });
    expect(gatewayError!.code).toBe('context_length_exceeded');

    harness.upstream.chat.enqueue(scenario.chat().httpError(400, { body: JSON.parse(openAiBody) }));
    const raw = await postRaw('/v1/chat/completions', ask, { authorization: 'Bearer k' });
    expect(raw.status).toBe(400);
    expect(await raw.text()).toBe(JSON.stringify(JSON.parse(openAiBody)));
    expect(raw.headers.get('x-should-retry')).toBe('false');
  });

  it('messages 400: Anthropic’s request_id stays in the body; the SDK’s requestID is the upstream’s', async () => {
    harness.upstream.messages.enqueue(scenario.messages().httpError(400, { body: JSON.parse(anthropicBody), headers: { 'request-id': 'req_011' } }));
    const client = new Anthropic({ apiKey: 'k', baseURL: harness.url, maxRetries: 0 });
    const failure = (await client.messages.create({ model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }).catch((error: unknown) => error)) as InstanceType<typeof Anthropic.APIError>;
    expect(failure.status).toBe(400);
    expect(failure.requestID).toBe('req_011');
    expect(failure.error).toEqual(JSON.parse(anthropicBody));
  });
});

describe('R8.6 a non-streaming turn that fails after its stream started keeps the upstream’s ids (decision 0236)', () => {
  it('chat: the STREAM_CUT 502 carries the upstream’s x-request-id and rate limits; the SDK’s requestID is the upstream’s', async () => {
    // A JSON client was shown none of a cut answer: it is restarted (decision 0430) until the budget's 5 attempts are spent.
    for (let attempt = 0; attempt < 5; attempt += 1) harness.upstream.chat.enqueue(scenario.chat().text('partial text then a cut').eof({ afterEvents: 3 }).headers(UPSTREAM_HEADERS));
    const client = new OpenAI({ apiKey: 'k', baseURL: harness.openAiBaseUrl, maxRetries: 0 });
    const failure = (await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] }).catch((error: unknown) => error)) as InstanceType<typeof OpenAI.APIError>;
    expect(failure.status).toBe(502);
    expect(failure.code).toBe('STREAM_CUT');
    expect(failure.requestID).toBe('req_upstream_1');
    expect(failure.headers?.get('x-ratelimit-remaining-requests')).toBe('41');
    expect(failure.headers?.get('x-should-retry')).toBe('false');
    expect(failure.headers?.get('content-type')).toBe('application/json');
  });

  it('messages: the 502 carries the upstream’s request-id, which the Anthropic SDK reports', async () => {
    for (let attempt = 0; attempt < 5; attempt += 1) harness.upstream.messages.enqueue(scenario.messages().text('partial text then a cut').eof({ afterEvents: 4 }).headers(UPSTREAM_HEADERS));
    const client = new Anthropic({ apiKey: 'k', baseURL: harness.url, maxRetries: 0 });
    const failure = (await client.messages.create({ model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }).catch((error: unknown) => error)) as InstanceType<typeof Anthropic.APIError>;
    expect(failure.status).toBe(502);
    expect(failure.requestID).toBe('req_anthropic_1');
  });
});

describe('R8.8 the recovery routes answer without the /v1 prefix too', () => {
  it('POST /messages, /chat/completions and /responses run the turn like their /v1 forms', async () => {
    harness.upstream.messages.enqueue(scenario.messages().text('m'));
    harness.upstream.chat.enqueue(scenario.chat().text('c'));
    harness.upstream.responses.enqueue(scenario.responses().text('r'));
    const messages = await postRaw('/messages', { model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }, { 'x-api-key': 'k' });
    const chat = await postRaw('/chat/completions', { model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] }, { authorization: 'Bearer k' });
    const responses = await postRaw('/responses', { model: 'gpt-test', input: 'hi' }, { authorization: 'Bearer k' });
    expect((await messages.json()) as unknown).toMatchObject({ type: 'message', content: [{ type: 'text', text: 'm' }] });
    expect((await chat.json()) as unknown).toMatchObject({ object: 'chat.completion', choices: [{ message: { content: 'c' } }] });
    expect((await responses.json()) as unknown).toMatchObject({ object: 'response', status: 'completed' });
    expect(harness.upstream.requests.map((request) => new URL(request.url).pathname)).toEqual(['/v1/messages', '/v1/chat/completions', '/v1/responses']);
  });
});
