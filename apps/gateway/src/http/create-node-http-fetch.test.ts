import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { classifyThrownError, type FetchResponse } from '@turnguard/core';
import { createNodeHttpFetch, type NodeHttpFetch } from './create-node-http-fetch.js';

// Real loopback sockets: the transport's contract is about what node:net does.
type Handler = (request: IncomingMessage, response: ServerResponse, body: string) => void;
let handler: Handler;
let server: Server;
let base: string;
let transport: NodeHttpFetch;

beforeEach(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => handler(request, response, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  transport = createNodeHttpFetch({ env: {} });
});

afterEach(async () => {
  transport.destroy();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const post = (init: Partial<RequestInit> = {}): Promise<FetchResponse> =>
  transport.fetch(`${base}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer k' }, body: '{"a":"é"}', ...init });

describe('createNodeHttpFetch (runTurn transport over undici)', () => {
  it('sends method, headers and the body with its byte length; returns status and headers', async () => {
    let seen: { method?: string; length?: string; auth?: string; body: string } | undefined;
    handler = (request, response, body) => {
      seen = { method: request.method, length: request.headers['content-length'], auth: request.headers.authorization, body };
      response.writeHead(201, { 'x-request-id': 'req_1' }).end('ok');
    };
    const response = await post();
    expect(response.status).toBe(201);
    expect(response.headers.get('x-request-id')).toBe('req_1');
    expect(await response.text()).toBe('ok');
    expect(seen).toEqual({ method: 'POST', length: String(Buffer.byteLength('{"a":"é"}')), auth: 'Bearer k', body: '{"a":"é"}' });
  });

  it('reads headers like fetch: any case, repeated values joined with ", ", absent as null; text() joins a split UTF-8 character', async () => {
    handler = (_request, response) => {
      response.setHeader('x-multi', ['a', 'b']);
      response.setHeader('Retry-After', '7');
      response.writeHead(200);
      const bytes = Buffer.from('é', 'utf8');
      response.write(bytes.subarray(0, 1));
      setImmediate(() => response.end(bytes.subarray(1)));
    };
    const response = await post();
    expect(response.ok).toBe(true);
    expect(response.headers.get('X-Multi')).toBe('a, b');
    expect(response.headers.get('retry-after')).toBe('7');
    expect(response.headers.get('x-absent')).toBeNull();
    expect(await response.text()).toBe('é');
  });

  it('keeps each URL apart when reusing parsed targets: path, query and port reach the right upstream', async () => {
    const seen: string[] = [];
    handler = (request, response) => {
      seen.push(request.url ?? '');
      response.end('ok');
    };
    for (const path of ['/v1/chat/completions', '/v1/messages?beta=true', '/v1/chat/completions']) {
      const response = await transport.fetch(`${base}${path}`, { method: 'POST', headers: {}, body: '{}' });
      expect(await response.text()).toBe('ok');
    }
    expect(seen).toEqual(['/v1/chat/completions', '/v1/messages?beta=true', '/v1/chat/completions']);
    await expect(transport.fetch('http://127.0.0.1:1/v1/x', { method: 'POST', headers: {}, body: '{}' })).rejects.toThrow('fetch failed');
  });

  it('R8.2 streams the body as it arrives: the first chunk is readable before the upstream sends the second', async () => {
    let sendRest!: () => void;
    handler = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: 1\n\n');
      sendRest = () => response.end('data: 2\n\n');
    };
    const reader = (await post()).body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('data: 1\n\n');
    sendRest();
    const second = await reader.read();
    expect(new TextDecoder().decode(second.value)).toBe('data: 2\n\n');
    expect((await reader.read()).done).toBe(true);
  });

  it('R1.1 a refused connection rejects with ECONNREFUSED: a retryable transport error', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const thrown = await transport.fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' }).catch((error: unknown) => error);
    // The same shape as undici's fetch: TypeError "fetch failed" caused by the node:net error.
    expect(thrown).toBeInstanceOf(TypeError);
    expect(thrown).toMatchObject({ message: 'fetch failed', cause: { code: 'ECONNREFUSED' } });
    const error = classifyThrownError(thrown);
    expect(error).toMatchObject({ kind: 'transport', retryable: true, details: { errorCode: 'ECONNREFUSED' } });
  });

  it('R1.1 a socket reset before the response (ECONNRESET, "socket hang up") is a retryable transport error', async () => {
    handler = (request) => request.socket.destroy();
    const thrown = await post().catch((error: unknown) => error);
    expect(classifyThrownError(thrown)).toMatchObject({ kind: 'transport', retryable: true });
  });

  it('R1.1 a socket destroyed mid-body errors the stream like undici ("terminated"): a retryable transport error', async () => {
    handler = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: 1\n\n', () => response.socket?.destroy());
    };
    const reader = (await post()).body!.getReader();
    await reader.read();
    const thrown = await reader.read().catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(TypeError);
    expect((thrown as TypeError).message).toBe('terminated');
    expect(classifyThrownError(thrown)).toMatchObject({ kind: 'transport', retryable: true });
  });

  it('R4.1 every byte received before a cut reaches the reader before the "terminated" error', async () => {
    handler = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: 1\n\n');
      response.write('data: 2\n\n');
      response.write('data: 3\n', () => response.socket?.destroy());
    };
    const reader = (await post()).body!.getReader();
    let text = '';
    let thrown: unknown;
    for (;;) {
      try {
        const { done, value } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      } catch (error) {
        thrown = error;
        break;
      }
    }
    expect(text).toBe('data: 1\n\ndata: 2\n\ndata: 3\n');
    expect((thrown as Error).message).toBe('terminated');
  });

  it('R1.6 an abort before the response rejects with the abort at once and closes the upstream socket', async () => {
    const controller = new AbortController();
    const upstreamClosed = new Promise<void>((resolve) => {
      handler = (request) => {
        request.socket.once('close', () => resolve());
        controller.abort();
      };
    });
    const thrown = await post({ signal: controller.signal }).catch((error: unknown) => error);
    expect(classifyThrownError(thrown)).toMatchObject({ kind: 'aborted' });
    await upstreamClosed;
  });

  it('R8.4 an abort mid-body errors the stream with the abort and closes the upstream socket', async () => {
    const controller = new AbortController();
    let upstreamClosed!: Promise<void>;
    handler = (request, response) => {
      upstreamClosed = new Promise((resolve) => request.socket.once('close', () => resolve()));
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: 1\n\n');
    };
    const reader = (await post({ signal: controller.signal })).body!.getReader();
    await reader.read();
    const pending = reader.read().catch((error: unknown) => error);
    controller.abort();
    expect(classifyThrownError(await pending)).toMatchObject({ kind: 'aborted' });
    await upstreamClosed;
  });

  it('R1.6 an abort in the same tick as the call, on a kept-alive connection, rejects before the request leaves; the pool stays usable', async () => {
    const paths: string[] = [];
    handler = (request, response) => {
      paths.push(request.url ?? '');
      response.end('ok');
    };
    expect(await (await post()).text()).toBe('ok');
    const controller = new AbortController();
    const pending = transport.fetch(`${base}/aborted`, { method: 'POST', body: '{}', signal: controller.signal }).catch((error: unknown) => error);
    controller.abort();
    expect(classifyThrownError(await pending)).toMatchObject({ kind: 'aborted' });
    // The next request on the same pool is answered, and the aborted one never reached the upstream.
    expect(await (await post()).text()).toBe('ok');
    expect(paths).toEqual(['/v1/chat/completions', '/v1/chat/completions']);
  });

  it('R1.6 an abort in the same tick as the call on a new connection rejects; nothing is sent, and destroy() leaves nothing open', async () => {
    let requests = 0;
    handler = () => {
      requests += 1;
    };
    const controller = new AbortController();
    const pending = post({ signal: controller.signal }).catch((error: unknown) => error);
    controller.abort();
    expect(classifyThrownError(await pending)).toMatchObject({ kind: 'aborted' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(requests).toBe(0);
    transport.destroy();
    await expect.poll(() => new Promise<number>((resolve, reject) => server.getConnections((error, count) => (error ? reject(error) : resolve(count))))).toBe(0);
  });

  it('an already-aborted signal rejects without sending anything', async () => {
    let requests = 0;
    handler = (_request, response) => {
      requests += 1;
      response.end();
    };
    const thrown = await post({ signal: AbortSignal.abort() }).catch((error: unknown) => error);
    expect(classifyThrownError(thrown)).toMatchObject({ kind: 'aborted' });
    expect(requests).toBe(0);
  });

  it('cancelling the body releases the socket', async () => {
    let upstreamClosed!: Promise<void>;
    handler = (request, response) => {
      upstreamClosed = new Promise((resolve) => request.socket.once('close', () => resolve()));
      response.writeHead(200).write('data: 1\n\n');
    };
    const body = (await post()).body!;
    await body.cancel();
    await upstreamClosed;
  });

  it('an error status keeps its body text and headers for classifyError (retry-after)', async () => {
    handler = (_request, response) => response.writeHead(429, { 'retry-after-ms': '5', 'content-type': 'application/json' }).end('{"error":{"message":"slow"}}');
    const response = await post();
    expect(response.ok).toBe(false);
    expect(response.headers.get('retry-after-ms')).toBe('5');
    expect(await response.text()).toBe('{"error":{"message":"slow"}}');
  });

  it('decodes a gzip body sent despite no accept-encoding, and answers 204 with a null body', async () => {
    handler = (request, response) => {
      if (request.headers['accept-encoding'] !== undefined) response.writeHead(500).end();
      else if (request.url === '/empty') response.writeHead(204).end();
      else response.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync('data: zipped\n\n'));
    };
    expect(await (await post()).text()).toBe('data: zipped\n\n');
    const empty = await transport.fetch(`${base}/empty`, { method: 'POST', body: '' });
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
  });

  it('rejects a non-http URL with a TypeError instead of sending it anywhere', async () => {
    await expect(transport.fetch('ftp://127.0.0.1/x', { method: 'POST' })).rejects.toBeInstanceOf(TypeError);
    await expect(transport.fetch('not a url', { method: 'POST' })).rejects.toBeInstanceOf(TypeError);
  });
});
