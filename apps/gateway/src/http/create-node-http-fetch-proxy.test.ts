import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createProxy } from 'proxy';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LoopbackServers } from '../testing/loopback-servers.test-helper.js';
import { createNodeHttpFetch, type NodeHttpFetch } from './create-node-http-fetch.js';

// Decision 0220: HTTP_PROXY / HTTPS_PROXY / NO_PROXY from the gateway's env, through real loopback proxies
// (the `proxy` package: CONNECT tunnels and absolute-form forwarding), and https upstreams.

let tls: { key: Buffer; cert: Buffer };
const servers = new LoopbackServers();
let transport: NodeHttpFetch | undefined;

beforeAll(() => {
  // A throwaway self-signed certificate for 127.0.0.1 (nothing secret is committed).
  const dir = mkdtempSync(join(tmpdir(), 'turnguard-tls-'));
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  tls = { key: readFileSync(key), cert: readFileSync(cert) };
  rmSync(dir, { recursive: true });
});

afterEach(async () => {
  transport?.destroy();
  transport = undefined;
  await servers.closeAll();
});

const listen = (server: Server): Promise<number> => servers.listen(server);

const answer = (request: IncomingMessage, response: ServerResponse): void => {
  request.resume();
  response.writeHead(200, { 'content-type': 'text/event-stream' }).end(`data: ${request.url}\n\n`);
};

/** A loopback proxy that counts what it relays: CONNECT tunnels and absolute-form requests. */
async function startProxy(credentials?: string): Promise<{ url: string; tunnels: string[]; forwarded: string[] }> {
  const tunnels: string[] = [];
  const forwarded: string[] = [];
  const server = createHttpServer();
  server.on('connect', (request: IncomingMessage) => tunnels.push(request.url ?? ''));
  server.on('request', (request: IncomingMessage) => forwarded.push(request.url ?? ''));
  const proxy = createProxy(server);
  if (credentials !== undefined) proxy.authenticate = (request) => request.headers['proxy-authorization'] === `Basic ${Buffer.from(credentials).toString('base64')}`;
  const port = await listen(proxy);
  return { url: `http://127.0.0.1:${port}`, tunnels, forwarded };
}

async function fetchText(url: string): Promise<string> {
  const response = await transport!.fetch(url, { method: 'POST', headers: { authorization: 'Bearer sk-test' }, body: '{}' });
  return response.text();
}

describe('createNodeHttpFetch through proxies from the gateway env', () => {
  it('https upstreams work directly, trusting the given CA', async () => {
    const port = await listen(createHttpsServer(tls, answer) as unknown as Server);
    transport = createNodeHttpFetch({ env: {}, ca: tls.cert });
    expect(await fetchText(`https://127.0.0.1:${port}/v1/messages`)).toBe('data: /v1/messages\n\n');
  });

  it('HTTPS_PROXY: an https upstream is reached through a CONNECT tunnel', async () => {
    const proxy = await startProxy();
    const port = await listen(createHttpsServer(tls, answer) as unknown as Server);
    transport = createNodeHttpFetch({ env: { HTTPS_PROXY: proxy.url }, ca: tls.cert });
    expect(await fetchText(`https://127.0.0.1:${port}/v1/responses`)).toBe('data: /v1/responses\n\n');
    expect(proxy.tunnels).toEqual([`127.0.0.1:${port}`]);
    expect(proxy.forwarded).toEqual([]);
  });

  it('HTTP_PROXY (lower case too): an http upstream goes to a plain HTTP proxy in absolute form', async () => {
    const proxy = await startProxy();
    const port = await listen(createHttpServer(answer));
    transport = createNodeHttpFetch({ env: { http_proxy: proxy.url } });
    expect(await fetchText(`http://127.0.0.1:${port}/v1/chat/completions`)).toBe('data: /v1/chat/completions\n\n');
    expect(proxy.forwarded).toEqual([`http://127.0.0.1:${port}/v1/chat/completions`]);
    expect(proxy.tunnels).toEqual([]);
  });

  it('credentials in the proxy URL become its proxy-authorization (CONNECT and absolute form)', async () => {
    const proxy = await startProxy('user:p@ss');
    const secure = await listen(createHttpsServer(tls, answer) as unknown as Server);
    const plain = await listen(createHttpServer(answer));
    const url = proxy.url.replace('http://', 'http://user:p%40ss@');
    transport = createNodeHttpFetch({ env: { HTTPS_PROXY: url, HTTP_PROXY: url }, ca: tls.cert });
    expect(await fetchText(`https://127.0.0.1:${secure}/s`)).toBe('data: /s\n\n');
    expect(await fetchText(`http://127.0.0.1:${plain}/p`)).toBe('data: /p\n\n');
    expect(proxy.tunnels).toHaveLength(1);
    expect(proxy.forwarded).toHaveLength(1);
  });

  it('NO_PROXY bypasses the proxy for the hosts it names, and only those', async () => {
    const proxy = await startProxy();
    const port = await listen(createHttpServer(answer));
    transport = createNodeHttpFetch({ env: { HTTP_PROXY: proxy.url, NO_PROXY: 'example.internal, 127.0.0.1' } });
    expect(await fetchText(`http://127.0.0.1:${port}/direct`)).toBe('data: /direct\n\n');
    expect(proxy.forwarded).toEqual([]);
    transport.destroy();
    transport = createNodeHttpFetch({ env: { HTTP_PROXY: proxy.url, NO_PROXY: 'example.internal' } });
    expect(await fetchText(`http://127.0.0.1:${port}/proxied`)).toBe('data: /proxied\n\n');
    expect(proxy.forwarded).toEqual([`http://127.0.0.1:${port}/proxied`]);
  });

  it('reads the proxy from the env it is given, never from process.env', async () => {
    const proxy = await startProxy();
    const port = await listen(createHttpServer(answer));
    const saved = process.env.HTTP_PROXY;
    process.env.HTTP_PROXY = proxy.url;
    try {
      transport = createNodeHttpFetch({ env: {} });
      expect(await fetchText(`http://127.0.0.1:${port}/x`)).toBe('data: /x\n\n');
    } finally {
      if (saved === undefined) delete process.env.HTTP_PROXY;
      else process.env.HTTP_PROXY = saved;
    }
    expect(proxy.forwarded).toEqual([]);
  });
});
