import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from './create-gateway.js';

// R8.8: every path that is not a recovery route reaches the upstream of its protocol
// family unchanged — method, path, query, headers, body — and its answer comes back as it came.
interface Seen {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
  body: string;
  server: 'openai' | 'anthropic';
}

let seen: Seen[] = [];
let gateway: Gateway;
const servers: Server[] = [];

function startUpstream(name: Seen['server']): Promise<string> {
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (part: string) => (body += part));
    request.on('end', () => {
      seen.push({ method: request.method, url: request.url, headers: request.headers, body, server: name });
      const text = JSON.stringify(answerFor(name, request.url ?? ''));
      response.writeHead(200, { 'content-type': 'application/json', 'x-request-id': `req_${name}`, 'request-id': `req_${name}`, 'content-length': String(Buffer.byteLength(text)) });
      response.end(request.method === 'HEAD' ? undefined : text);
    });
  });
  servers.push(server);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

function answerFor(name: Seen['server'], url: string): unknown {
  if (url.includes('count_tokens')) return { input_tokens: 42 };
  if (/models\/[^/?]+/.test(url)) return name === 'openai' ? { id: 'gpt-x', object: 'model', created: 1, owned_by: 'o' } : { id: 'claude-x', type: 'model', display_name: 'Claude X', created_at: '2025-01-01T00:00:00Z' };
  if (url.includes('models')) return name === 'openai' ? { object: 'list', data: [{ id: 'gpt-x', object: 'model', created: 1, owned_by: 'o' }] } : { data: [{ id: 'claude-x', type: 'model', display_name: 'Claude X', created_at: '2025-01-01T00:00:00Z' }], has_more: false, first_id: 'claude-x', last_id: 'claude-x' };
  return { echoed: url };
}

beforeAll(async () => {
  const openai = await startUpstream('openai');
  const anthropic = await startUpstream('anthropic');
  gateway = createGateway({ port: 0, upstreams: { chat: `${openai}/v1`, responses: `${openai}/v1`, messages: anthropic }, env: {} });
  await gateway.listen();
});
afterAll(async () => {
  await gateway.close();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});
beforeEach(() => {
  seen = [];
});

describe('R8.8 routes real clients call', () => {
  it('openai: models.list() and models.retrieve() work through the gateway, with the upstream’s request id', async () => {
    const client = new OpenAI({ apiKey: 'sk-o', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const page = await client.models.list();
    expect(page.data.map((model) => model.id)).toEqual(['gpt-x']);
    const model = await client.models.retrieve('gpt-x');
    expect(model.id).toBe('gpt-x');
    expect(seen.map((entry) => [entry.server, entry.method, entry.url])).toEqual([
      ['openai', 'GET', '/v1/models'],
      ['openai', 'GET', '/v1/models/gpt-x'],
    ]);
    expect(seen[0]!.headers.authorization).toBe('Bearer sk-o');
    expect(seen[0]!.headers['user-agent']).toMatch(/^OpenAI\//);
  });

  it('anthropic: models.list() and messages.countTokens() go to the Anthropic upstream with the client’s headers', async () => {
    const client = new Anthropic({ apiKey: 'sk-a', baseURL: gateway.url!, maxRetries: 0 });
    const models = await client.models.list();
    expect(models.data.map((model) => model.id)).toEqual(['claude-x']);
    const count = await client.messages.countTokens({ model: 'claude-x', messages: [{ role: 'user', content: 'hi' }] });
    expect(count.input_tokens).toBe(42);
    expect(seen.map((entry) => [entry.server, entry.method, entry.url?.split('?')[0]])).toEqual([
      ['anthropic', 'GET', '/v1/models'],
      ['anthropic', 'POST', '/v1/messages/count_tokens'],
    ]);
    expect(JSON.parse(seen[1]!.body)).toEqual({ model: 'claude-x', messages: [{ role: 'user', content: 'hi' }] });
    expect(seen[1]!.headers['anthropic-version']).toBeDefined();
  });

  it('method, path, query, body and headers unchanged; the answer’s status, headers and bytes as they came', async () => {
    const body = '{"input":"embed me","model":"text-embedding-3-small"}';
    const response = await fetch(`${gateway.url}/v1/embeddings?trace=1&x=%20y`, { method: 'POST', headers: { authorization: 'Bearer sk-e', 'content-type': 'application/json', 'x-custom': 'kept' }, body });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('req_openai');
    expect(await response.text()).toBe(JSON.stringify({ echoed: '/v1/embeddings?trace=1&x=%20y' }));
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ server: 'openai', method: 'POST', url: '/v1/embeddings?trace=1&x=%20y', body });
    expect(seen[0]!.headers).toMatchObject({ authorization: 'Bearer sk-e', 'content-type': 'application/json', 'x-custom': 'kept', 'content-length': String(body.length) });
  });

  it('paths without /v1 reach the same upstream paths', async () => {
    await (await fetch(`${gateway.url}/models`, { headers: { authorization: 'Bearer k' } })).text();
    await (await fetch(`${gateway.url}/models`, { headers: { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' } })).text();
    expect(seen.map((entry) => [entry.server, entry.url])).toEqual([
      ['openai', '/v1/models'],
      ['anthropic', '/v1/models'],
    ]);
  });

  it('HEAD is forwarded and answered without a body; OPTIONS gets 204 with the allowed methods; the server stays up', async () => {
    const head = await fetch(`${gateway.url}/v1/models`, { method: 'HEAD', headers: { authorization: 'Bearer k' } });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect(seen[0]).toMatchObject({ method: 'HEAD', url: '/v1/models' });
    const options = await fetch(`${gateway.url}/v1/chat/completions`, { method: 'OPTIONS' });
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toContain('POST');
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${gateway.url}/healthz`, { method: 'HEAD' })).status).toBe(200);
  });
});
