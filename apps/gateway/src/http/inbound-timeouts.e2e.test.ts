import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../create-gateway.js';

// R8.9 time-outs with short configured values (no sleeps of minutes) over raw sockets.
const TIMEOUTS = { headersTimeoutMs: 200, requestTimeoutMs: 300, keepAliveTimeoutMs: 150 };
let gateway: Gateway | undefined;
let upstream: Server | undefined;

afterEach(async () => {
  await gateway?.close();
  await new Promise((resolve) => (upstream === undefined ? resolve(undefined) : upstream.close(resolve)));
  gateway = undefined;
  upstream = undefined;
});

async function startGateway(upstreamUrl = 'http://127.0.0.1:9'): Promise<AddressInfo> {
  gateway = createGateway({ port: 0, env: {}, upstreams: { chat: upstreamUrl, responses: upstreamUrl, messages: upstreamUrl }, ...TIMEOUTS });
  return gateway.listen();
}

/** Opens a raw socket and resolves, when the gateway closes it, with what it wrote and after how long. */
function openSocket(address: AddressInfo, write: (socket: Socket) => void): Promise<{ text: string; closedAfterMs: number }> {
  return new Promise((resolve) => {
    const openedAt = performance.now();
    const socket = connect(address.port, address.address, () => write(socket));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (part: string) => (text += part));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ text, closedAfterMs: performance.now() - openedAt }));
  });
}

const head = (host: string, extra: string) => `POST /v1/chat/completions HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\n${extra}\r\n`;

describe('R8.9 server time-outs close slow or idle connections', () => {
  it('an idle keep-alive connection is closed after keepAliveTimeoutMs', async () => {
    const address = await startGateway();
    const result = await openSocket(address, (socket) => socket.write(`GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`));
    expect(result.text).toMatch(/^HTTP\/1\.1 200/);
    expect(result.text.toLowerCase()).toMatch(/keep-alive: timeout=\d+/);
    expect(result.closedAfterMs).toBeGreaterThanOrEqual(TIMEOUTS.keepAliveTimeoutMs - 20);
    expect(result.closedAfterMs).toBeLessThan(5_000);
  });

  it('a connection that never sends a byte is closed after headersTimeoutMs', async () => {
    const address = await startGateway();
    const result = await openSocket(address, () => undefined);
    expect(result.closedAfterMs).toBeGreaterThanOrEqual(TIMEOUTS.headersTimeoutMs - 20);
    expect(result.closedAfterMs).toBeLessThan(5_000);
  });

  it('a chunked body that never ends is closed with 408 after requestTimeoutMs', async () => {
    const address = await startGateway();
    const result = await openSocket(address, (socket) => socket.write(`${head('127.0.0.1', 'transfer-encoding: chunked\r\n')}5\r\n{"mod\r\n`));
    expect(result.text).toMatch(/^HTTP\/1\.1 408/);
    expect(result.closedAfterMs).toBeGreaterThanOrEqual(TIMEOUTS.requestTimeoutMs - 20);
    expect(result.closedAfterMs).toBeLessThan(5_000);
  });

  it('a body shorter than its content-length is closed with 408 after requestTimeoutMs', async () => {
    const address = await startGateway();
    const result = await openSocket(address, (socket) => socket.write(`${head('127.0.0.1', 'content-length: 100\r\n')}{"model":`));
    expect(result.text).toMatch(/^HTTP\/1\.1 408/);
    expect(result.closedAfterMs).toBeLessThan(5_000);
  });

  it('headers that never finish are closed with 408 after headersTimeoutMs', async () => {
    const address = await startGateway();
    const result = await openSocket(address, (socket) => socket.write('POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\nx-slow: '));
    expect(result.text).toMatch(/^HTTP\/1\.1 408/);
    expect(result.closedAfterMs).toBeGreaterThanOrEqual(TIMEOUTS.headersTimeoutMs - 20);
    expect(result.closedAfterMs).toBeLessThan(5_000);
  });

  it('a response stream silent for longer than every time-out is not cut (long thinking)', async () => {
    const silenceMs = 700;
    upstream = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        const chunk = (delta: object, finish: string | null) => `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
        response.write(chunk({ role: 'assistant', content: '' }, null));
        setTimeout(() => response.end(`${chunk({ content: 'after the silence' }, null)}${chunk({}, 'stop')}data: [DONE]\n\n`), silenceMs);
      });
    });
    await new Promise<void>((resolve) => upstream!.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
    await startGateway(base);
    const response = await fetch(`${gateway!.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    const text = await response.text();
    expect(text).toContain('after the silence');
    expect(text).toContain('"finish_reason":"stop"');
    expect(text.trim().endsWith('data: [DONE]')).toBe(true);
  });
});
