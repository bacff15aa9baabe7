import { createServer as createHttpServer, type IncomingHttpHeaders } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server } from 'node:net';
import { deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { chatAdapter } from '@turnguard/adapter-chat';
import { classifyThrownError, runTurn } from '@turnguard/core';
import { createNodeHttpFetch, type NodeHttpFetch } from './create-node-http-fetch.js';
import type { NodeHttpResponse } from './node-http-response.js';

// What goes on the wire and what comes back, on real loopback sockets (R1.1, R8.6, decision 0220).
let servers: Array<{ close(callback: () => void): unknown }> = [];
let transport: NodeHttpFetch;

afterEach(async () => {
  transport?.destroy();
  await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  servers = [];
});

async function listen<T extends Server>(server: T): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** A raw TCP upstream that answers every request with `responses[n]` (bytes as given), `n` counting requests. */
async function startRawUpstream(responses: string[]): Promise<{ port: number; requests: () => number }> {
  let requests = 0;
  const server = createNetServer((socket) => {
    socket.on('data', () => {
      const answer = responses[Math.min(requests, responses.length - 1)]!;
      requests += 1;
      socket.end(answer);
    });
  });
  return { port: await listen(server), requests: () => requests };
}

const SSE_OK = 'data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';
const okResponse = `HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: ${Buffer.byteLength(SSE_OK)}\r\nconnection: close\r\n\r\n${SSE_OK}`;

describe('createNodeHttpFetch on the wire', () => {
  it.each(['HTTP/1.1 099 Odd', 'HTTP/1.1 1000 Odd', 'HTTP/1.1 12 Odd'])('a status line "%s" is a retryable transport failure (fetch failed)', async (line) => {
    const upstream = await startRawUpstream([`${line}\r\ncontent-length: 2\r\n\r\nok`]);
    transport = createNodeHttpFetch({ env: {} });
    const thrown = await transport.fetch(`http://127.0.0.1:${upstream.port}/v1/chat/completions`, { method: 'POST', body: '{}' }).catch((error: unknown) => error);
    expect(thrown).toMatchObject({ name: 'TypeError', message: 'fetch failed' });
    expect(classifyThrownError(thrown)).toMatchObject({ kind: 'transport', retryable: true });
  });

  it('R1.1 a bad status line is retried before any output: runTurn gets its answer from the second request', async () => {
    const upstream = await startRawUpstream([`HTTP/1.1 099 Odd\r\ncontent-length: 0\r\n\r\n`, okResponse]);
    transport = createNodeHttpFetch({ env: {} });
    const run = runTurn({
      adapter: chatAdapter,
      request: chatAdapter.buildRequest({ messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] }, { model: 'm', stream: true }),
      target: { baseUrl: `http://127.0.0.1:${upstream.port}/v1`, apiKey: 'sk-test' },
      fetch: transport.fetch,
      retry: { initialDelayMs: 0, maxDelayMs: 1, jitterRatio: 0 },
    });
    let text = '';
    for await (const event of run) if (event.type === 'text-delta') text += event.delta;
    expect((await run.result).outcome).toBe('ok');
    expect(text).toBe('Hi');
    expect(upstream.requests()).toBe(2);
  });

  it.each([
    ['deflate (zlib)', 'deflate', deflateSync],
    ['deflate sent raw', 'deflate', deflateRawSync],
    ['gzip, gzip', 'gzip, gzip', (bytes: Buffer) => gzipSync(gzipSync(bytes))],
    ['gzip then deflate', 'gzip, deflate', (bytes: Buffer) => deflateSync(gzipSync(bytes))],
  ])('decodes a body compressed as %s', async (_name, encoding, compress) => {
    const body = compress(Buffer.from('data: zipped é\n\n'.repeat(500)));
    const server = createHttpServer((_request, response) => response.writeHead(200, { 'content-encoding': encoding }).end(body));
    const port = await listen(server as unknown as Server);
    transport = createNodeHttpFetch({ env: {} });
    const response = await transport.fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' });
    expect(await response.text()).toBe('data: zipped é\n\n'.repeat(500));
  });

  it('a corrupt compressed body errors the read like a cut ("terminated"), not a silent end', async () => {
    const server = createHttpServer((_request, response) => response.writeHead(200, { 'content-encoding': 'gzip' }).end('not gzip at all'));
    const port = await listen(server as unknown as Server);
    transport = createNodeHttpFetch({ env: {} });
    const response = await transport.fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' });
    await expect(response.text()).rejects.toMatchObject({ message: 'terminated' });
  });

  it('sends every request header given except hop-by-hop ones, host and content-length; URL credentials become basic auth', async () => {
    let seen: IncomingHttpHeaders | undefined;
    const server = createHttpServer((request, response) => {
      seen = request.headers;
      response.end('ok');
    });
    const port = await listen(server as unknown as Server);
    transport = createNodeHttpFetch({ env: {} });
    const headers = {
      'Content-Type': 'application/json',
      'anthropic-beta': 'a,b',
      'x-stainless-os': 'Linux',
      'user-agent': 'claude-cli/2.0',
      connection: 'x-hop',
      'x-hop': 'never',
      'keep-alive': 'timeout=5',
      'transfer-encoding': 'chunked',
      'proxy-authorization': 'Basic c2VjcmV0',
      te: 'trailers',
      upgrade: 'h2c',
      host: 'evil.example',
      'content-length': '999',
    };
    const response = await transport.fetch(`http://user:p%40ss@127.0.0.1:${port}/v1/messages?beta=true`, { method: 'POST', headers, body: '{"a":1}' });
    expect(await response.text()).toBe('ok');
    expect(seen).toMatchObject({ 'content-type': 'application/json', 'anthropic-beta': 'a,b', 'x-stainless-os': 'Linux', 'user-agent': 'claude-cli/2.0' });
    expect(seen!.host).toBe(`127.0.0.1:${port}`);
    expect(seen!['content-length']).toBe('7');
    expect(seen!.authorization).toBe(`Basic ${Buffer.from('user:p@ss').toString('base64')}`);
    for (const name of ['x-hop', 'keep-alive', 'transfer-encoding', 'proxy-authorization', 'te', 'upgrade']) expect(seen).not.toHaveProperty(name);
  });

  it('exposes every upstream response header, repeats included', async () => {
    const server = createHttpServer((_request, response) => {
      response.setHeader('set-cookie', ['a=1', 'b=2']);
      response.setHeader('x-ratelimit-remaining-requests', '99');
      response.setHeader('link', ['<a>; rel=x', '<b>; rel=y']);
      response.end('ok');
    });
    const port = await listen(server as unknown as Server);
    transport = createNodeHttpFetch({ env: {} });
    const response = (await transport.fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' })) as NodeHttpResponse;
    const entries = [...response.headers.entries()];
    expect(entries).toEqual(expect.arrayContaining([['set-cookie', 'a=1'], ['set-cookie', 'b=2'], ['x-ratelimit-remaining-requests', '99'], ['link', '<a>; rel=x'], ['link', '<b>; rel=y']]));
    const joined: Record<string, string> = {};
    response.headers.forEach((value, name) => (joined[name] = value));
    expect(joined).toMatchObject({ link: '<a>; rel=x, <b>; rel=y', 'x-ratelimit-remaining-requests': '99' });
    expect(response.headers.get('Set-Cookie')).toBe('a=1, b=2');
    await response.text();
  });

  it('a header value with CR/LF is refused before anything is sent, as a non-retryable typed error (no request smuggling)', async () => {
    let requests = 0;
    const server = createHttpServer((_request, response) => {
      requests += 1;
      response.end();
    });
    const port = await listen(server as unknown as Server);
    transport = createNodeHttpFetch({ env: {} });
    const thrown = await transport
      .fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: { 'x-a': 'v\r\nGET /smuggled HTTP/1.1' }, body: '{}' })
      .catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(TypeError);
    expect(classifyThrownError(thrown)).toMatchObject({ retryable: false });
    expect(requests).toBe(0);
  });
});
