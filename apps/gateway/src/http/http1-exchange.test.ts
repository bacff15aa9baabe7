import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { classifyThrownError } from '@turnguard/core';
import { createNodeHttpFetch, type NodeHttpFetch } from './create-node-http-fetch.js';

// The lean HTTP/1.1 client behind createNodeHttpFetch's plain-http path (decision 0213), on real loopback sockets.
const closers: Array<() => Promise<void>> = [];
let transport: NodeHttpFetch;

afterEach(async () => {
  vi.useRealTimers();
  transport?.destroy();
  for (const close of closers.splice(0)) await close();
});

async function listen<T extends Server | NetServer>(server: T): Promise<{ server: T; base: string }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** A node:http upstream that counts connections and records each request's head and body. */
async function httpUpstream(handler: (request: IncomingMessage, response: ServerResponse, body: string) => void) {
  const seen: Array<{ headers: IncomingMessage['headers']; body: string; socket: Socket }> = [];
  let connections = 0;
  const server = createHttpServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (part: string) => (body += part));
    request.on('end', () => {
      seen.push({ headers: request.headers, body, socket: request.socket });
      handler(request, response, body);
    });
  });
  server.on('connection', () => (connections += 1));
  const { base } = await listen(server);
  return { server, base, seen, connections: () => connections };
}

/** A raw TCP upstream that answers every request with `reply` (for responses node:http would never send). */
async function rawUpstream(reply: (socket: Socket) => void) {
  const server = createNetServer((socket) => socket.once('data', () => reply(socket)));
  return listen(server);
}

const post = (url: string, init: Partial<RequestInit> = {}) =>
  transport.fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":"é"}', ...init });

describe('the lean HTTP/1.1 client (decision 0213)', () => {
  it('sends one well-formed request per call and reuses one kept-alive connection for sequential requests', async () => {
    transport = createNodeHttpFetch();
    const upstream = await httpUpstream((_request, response, body) => response.end(`echo ${body}`));
    for (let index = 0; index < 3; index += 1) {
      expect(await (await post(`${upstream.base}/v1/x?n=${index}`)).text()).toBe('echo {"a":"é"}');
    }
    expect(upstream.connections()).toBe(1);
    expect(upstream.seen).toHaveLength(3);
    expect(upstream.seen[0]!.headers).toMatchObject({ host: new URL(upstream.base).host, 'content-length': '10', connection: 'keep-alive' });
  });

  it('an idle connection the upstream closed is never reused: the next request opens a new one', async () => {
    transport = createNodeHttpFetch();
    const upstream = await httpUpstream((_request, response) => response.end('ok'));
    await (await post(upstream.base)).text();
    const firstSocket = upstream.seen[0]!.socket;
    const clientSawClose = new Promise<void>((resolve) => firstSocket.once('close', () => resolve()));
    upstream.server.closeIdleConnections();
    await clientSawClose;
    await new Promise((resolve) => setImmediate(resolve));
    expect(await (await post(upstream.base)).text()).toBe('ok');
    expect(upstream.connections()).toBe(2);
  });

  it('honours the server’s keep-alive timeout: an idle connection past it, or with a hint of 1 s, is not reused', async () => {
    transport = createNodeHttpFetch();
    const upstream = await httpUpstream((_request, response) => response.end('ok'));
    // Only Date is faked (the sockets keep running): node:http sends "keep-alive: timeout=5", so 4 s idle at most.
    vi.useFakeTimers({ toFake: ['Date'] });
    await (await post(upstream.base)).text();
    vi.setSystemTime(Date.now() + 3_900);
    await (await post(upstream.base)).text();
    expect(upstream.connections()).toBe(1);
    vi.setSystemTime(Date.now() + 4_100);
    await (await post(upstream.base)).text();
    expect(upstream.connections()).toBe(2);
    vi.useRealTimers();

    const brief = await httpUpstream((_request, response) => response.end('ok'));
    brief.server.keepAliveTimeout = 1_000;
    await (await post(brief.base)).text();
    await (await post(brief.base)).text();
    expect(brief.connections()).toBe(2);
  });

  it('sends credentials in the URL as basic authorization, unless the caller set authorization', async () => {
    transport = createNodeHttpFetch();
    const upstream = await httpUpstream((_request, response) => response.end('ok'));
    const withCredentials = upstream.base.replace('http://', 'http://user:p%40ss@');
    await (await post(withCredentials)).text();
    await (await post(withCredentials, { headers: { authorization: 'Bearer k' } })).text();
    expect(upstream.seen.map((entry) => entry.headers.authorization)).toEqual([`Basic ${Buffer.from('user:p@ss').toString('base64')}`, 'Bearer k']);
  });

  it('sends the method upper-cased, as node:http does', async () => {
    transport = createNodeHttpFetch();
    const methods: string[] = [];
    const upstream = await httpUpstream((request, response) => {
      methods.push(request.method ?? '');
      response.end();
    });
    await (await post(upstream.base, { method: 'post' })).text();
    expect(methods).toEqual(['POST']);
  });

  it('after "connection: close", or a body that ran to the close, the connection is not reused', async () => {
    transport = createNodeHttpFetch();
    const upstream = await httpUpstream((request, response) => {
      if (request.url === '/close') response.setHeader('connection', 'close');
      response.end('ok');
    });
    await (await post(`${upstream.base}/close`)).text();
    await (await post(`${upstream.base}/after`)).text();
    expect(upstream.connections()).toBe(2);

    const open = await rawUpstream((socket) => socket.end('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\nuntil the close'));
    expect(await (await post(open.base)).text()).toBe('until the close');
  });

  it('refuses a header value with CR/LF (no request smuggling) and caller-set framing headers, before anything is sent', async () => {
    transport = createNodeHttpFetch();
    const upstream = await httpUpstream((_request, response) => response.end('ok'));
    const thrown = await post(upstream.base, { headers: { authorization: 'Bearer k\r\nx-injected: 1' } }).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(TypeError);
    expect(upstream.seen).toHaveLength(0);
    // A caller's host / content-length / connection / transfer-encoding never reach the wire.
    const headers = { host: 'evil.example', 'content-length': '1', connection: 'close', 'transfer-encoding': 'chunked', 'x-keep': 'yes' };
    expect(await (await post(upstream.base, { headers })).text()).toBe('ok');
    expect(upstream.seen[0]!.headers).toMatchObject({ host: new URL(upstream.base).host, 'content-length': '10', 'x-keep': 'yes', connection: 'keep-alive' });
    expect(upstream.seen[0]!.headers['transfer-encoding']).toBeUndefined();
  });

  it('R1.1 a malformed response head rejects like a failed fetch (retryable transport error) and drops the connection', async () => {
    transport = createNodeHttpFetch();
    let closed!: Promise<void>;
    const bad = await rawUpstream((socket) => {
      closed = new Promise((resolve) => socket.once('close', () => resolve()));
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: many\r\n\r\n');
    });
    const thrown = await post(bad.base).catch((error: unknown) => error);
    expect(thrown).toMatchObject({ message: 'fetch failed', cause: { name: 'Http1ParseError' } });
    expect(classifyThrownError(thrown)).toMatchObject({ kind: 'transport', retryable: true });
    await closed;
  });

  it('R4.1 a malformed chunk mid-body: the bytes before it reach the reader, then "terminated"', async () => {
    transport = createNodeHttpFetch();
    const bad = await rawUpstream((socket) =>
      socket.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n9\r\ndata: 1\n\n\r\nnot-hex\r\n'),
    );
    const reader = (await post(bad.base)).body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: 1\n\n');
    const thrown = await reader.read().catch((error: unknown) => error);
    expect(thrown).toMatchObject({ message: 'terminated', cause: { name: 'Http1ParseError' } });
    expect(classifyThrownError(thrown)).toMatchObject({ kind: 'transport', retryable: true });
  });

  it('an upstream that closes before answering is a retryable "socket hang up"', async () => {
    transport = createNodeHttpFetch();
    const gone = await rawUpstream((socket) => socket.end());
    const thrown = await post(gone.base).catch((error: unknown) => error);
    expect(thrown).toMatchObject({ message: 'fetch failed', cause: { code: 'ECONNRESET' } });
    expect(classifyThrownError(thrown)).toMatchObject({ kind: 'transport', retryable: true });
  });

  it('a body delimited by the close is cut, not complete, when our side closes it (gateway close)', async () => {
    transport = createNodeHttpFetch();
    const open = await rawUpstream((socket) => socket.write('HTTP/1.1 200 OK\r\n\r\ndata: 1\n\n'));
    const reader = (await post(open.base)).body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: 1\n\n');
    transport.destroy();
    await expect(reader.read()).rejects.toMatchObject({ message: 'terminated' });
  });

  it('destroy() closes connections in use and idle ones', async () => {
    transport = createNodeHttpFetch();
    const upstream = await httpUpstream((request, response) => {
      if (request.url === '/idle') response.end('ok');
      else response.writeHead(200).write('data: 1\n\n');
    });
    await (await post(`${upstream.base}/idle`)).text();
    const reader = (await post(`${upstream.base}/busy`)).body!.getReader();
    await reader.read();
    const sockets = upstream.seen.map((entry) => entry.socket);
    const allClosed = Promise.all(sockets.map((socket) => new Promise<void>((resolve) => socket.once('close', () => resolve()))));
    transport.destroy();
    await allClosed;
    await expect(reader.read()).rejects.toMatchObject({ message: 'terminated' });
  });
});
