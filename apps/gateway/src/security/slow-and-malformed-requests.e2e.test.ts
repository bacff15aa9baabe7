import { connect, type Socket } from 'node:net';
import { scenario, startLoopbackUpstream, type LoopbackUpstream } from '@turnguard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway, type GatewayOptions } from '../create-gateway.js';
import { DEFAULT_INBOUND_SETTINGS } from '../config/inbound-config.js';

// R8.9 over raw sockets, with short configured values (no sleeps of minutes); R8.11 log lines and the `rejected` metric.
let gateway: Gateway | undefined;
let upstream: LoopbackUpstream | undefined;
let logLines: Record<string, unknown>[] = [];

afterEach(async () => {
  await gateway?.close();
  await upstream?.close();
  gateway = undefined;
  upstream = undefined;
  logLines = [];
});

async function startGateway(options: GatewayOptions = {}): Promise<{ port: number }> {
  upstream = await startLoopbackUpstream();
  const base = upstream.baseUrl;
  gateway = createGateway({
    port: 0,
    env: {},
    upstreams: { chat: base, responses: base, messages: base.replace(/\/v1$/, '') },
    logDestination: { write: (line: string) => void logLines.push(JSON.parse(line) as Record<string, unknown>) },
    ...options,
  });
  return gateway.listen();
}

/** Opens a raw socket, lets `drive` write to it, and resolves with what came back once the gateway closed it. */
function exchange(port: number, drive: (socket: Socket) => void): Promise<{ text: string; closedAfterMs: number }> {
  return new Promise((resolve) => {
    const openedAt = performance.now();
    const socket = connect(port, '127.0.0.1', () => drive(socket));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (part: string) => (text += part));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ text, closedAfterMs: performance.now() - openedAt }));
  });
}

/** The gateway's `turnguard_rejected_requests_total` for one code (prom-client's counter). */
async function rejectedCount(code: string): Promise<number | undefined> {
  const { values } = await gateway!.metrics.rejected.get();
  return values.find((value) => value.labels.code === code)?.value;
}

function bodyOf(text: string): unknown {
  return JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
}

const head = (path: string, extra: string): string => `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\nauthorization: Bearer k\r\n${extra}\r\n`;

describe('R8.9 body idle limit, beside the whole-request limit', () => {
  it('defaults to 60 s, as nginx\'s client_body_timeout', () => {
    expect(DEFAULT_INBOUND_SETTINGS.bodyIdleTimeoutMs).toBe(60_000);
    expect(createGateway({ env: {} }).config.bodyIdleTimeoutMs).toBe(60_000);
  });

  it('a body that stalls after 16 of 1,000 bytes gets a readable 408 after the idle limit, not the request limit', async () => {
    const { port } = await startGateway({ bodyIdleTimeoutMs: 200, requestTimeoutMs: 300_000 });
    const result = await exchange(port, (socket) => socket.write(`${head('/v1/chat/completions', 'content-length: 1000\r\n')}{"model":"m","me`));
    expect(result.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(result.text.toLowerCase()).toContain('connection: close');
    expect(result.text.toLowerCase()).toContain('x-should-retry: false');
    expect(bodyOf(result.text)).toMatchObject({ error: { code: 'GATEWAY_BODY_IDLE', message: expect.stringContaining('0.2 s (bodyIdleTimeoutMs)') } });
    expect(result.closedAfterMs).toBeGreaterThanOrEqual(180);
    expect(result.closedAfterMs).toBeLessThan(5_000);
    expect(upstream!.requests).toHaveLength(0);
    expect(await rejectedCount('GATEWAY_BODY_IDLE')).toBe(1);
    await expect.poll(() => logLines.find((line) => line.msg === 'request')).toMatchObject({ status: 408, outcome: 'GATEWAY_BODY_IDLE', route: '/v1/chat/completions' });
  });

  it('a chunked body on a pass-through route that trickles, then stops, is closed the same way', async () => {
    const { port } = await startGateway({ bodyIdleTimeoutMs: 200 });
    const result = await exchange(port, (socket) => {
      socket.write(`${head('/v1/embeddings', 'transfer-encoding: chunked\r\n')}1\r\n{\r\n`);
      setTimeout(() => socket.write('1\r\n"\r\n'), 100);
    });
    expect(result.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(bodyOf(result.text)).toMatchObject({ error: { code: 'GATEWAY_BODY_IDLE' } });
    expect(result.closedAfterMs).toBeGreaterThanOrEqual(280);
  });

  it('a body that keeps coming, one byte per gap shorter than the limit, is served in full', async () => {
    const { port } = await startGateway({ bodyIdleTimeoutMs: 150 });
    upstream!.chat.enqueue(scenario.chat().text('served').usage({ input: 1, output: 1 }));
    const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'q' }] });
    const result = await exchange(port, (socket) => {
      socket.write(`${head('/v1/chat/completions', `content-length: ${body.length}\r\nconnection: close\r\n`)}${body.slice(0, 10)}`);
      // The rest a few bytes every 40 ms: well past the idle limit in total, never idle for it.
      let at = 10;
      const timer = setInterval(() => {
        socket.write(body.slice(at, at + 6));
        at += 6;
        if (at >= body.length) clearInterval(timer);
      }, 40);
    });
    expect(result.text).toMatch(/^HTTP\/1\.1 200 /);
    expect(result.text).toContain('served');
    expect(result.closedAfterMs).toBeGreaterThan(300);
  });

  it('once the body is in, a response silent for longer than the idle limit is not cut (long thinking)', async () => {
    await startGateway({ bodyIdleTimeoutMs: 100 });
    upstream!.chat.enqueue(scenario.chat().delay(350).text('after the silence').usage({ input: 1, output: 1 }));
    const response = await fetch(`${gateway!.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'q' }] }),
    });
    const text = await response.text();
    expect(text).toContain('silence');
    expect(text.trim().endsWith('data: [DONE]')).toBe(true);
  });
});

describe('R8.9 a request node:http cannot read gets a body, a log line and a metric', () => {
  it.each([
    ['/v1/chat/completions', { error: { code: 'GATEWAY_HEADERS_TOO_LARGE', type: 'invalid_request_error' } }],
    ['/v1/messages?beta=true', { type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining('request headers are larger') } }],
  ])('a 20 KB header on %s: 431 in the route\'s error shape', async (path, shape) => {
    const { port } = await startGateway();
    const result = await exchange(port, (socket) => socket.write(`${head(path, `x-big: ${'a'.repeat(20 * 1024)}\r\ncontent-length: 2\r\n`)}{}`));
    expect(result.text).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    expect(result.text.toLowerCase()).toContain('content-type: application/json');
    expect(bodyOf(result.text)).toMatchObject(shape);
    expect(upstream!.requests).toHaveLength(0);
    expect(await rejectedCount('GATEWAY_HEADERS_TOO_LARGE')).toBe(1);
    expect(logLines).toContainEqual(expect.objectContaining({ msg: 'request', status: 431, outcome: 'GATEWAY_HEADERS_TOO_LARGE', route: path.split('?')[0], method: 'POST' }));
    expect(JSON.stringify(logLines)).not.toContain('aaaa');
  });

  it('a whole-request time-out while the body is read answers through the request\'s own response: 408 with a body', async () => {
    const { port } = await startGateway({ headersTimeoutMs: 200, requestTimeoutMs: 300, bodyIdleTimeoutMs: 60_000 });
    const result = await exchange(port, (socket) => {
      socket.write(`${head('/v1/chat/completions', 'content-length: 100\r\n')}{"model":`);
      // Keeps the body going so the idle limit never fires; the request limit does.
      const timer = setInterval(() => (socket.writable ? socket.write(' ') : clearInterval(timer)), 50);
      socket.once('close', () => clearInterval(timer));
    });
    expect(result.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(bodyOf(result.text)).toMatchObject({ error: { code: 'GATEWAY_REQUEST_TIMEOUT' } });
    expect(await rejectedCount('GATEWAY_REQUEST_TIMEOUT')).toBe(1);
    await expect.poll(() => logLines.filter((line) => line.msg === 'request')).toEqual([expect.objectContaining({ status: 408, outcome: 'GATEWAY_REQUEST_TIMEOUT' })]);
  });
});
