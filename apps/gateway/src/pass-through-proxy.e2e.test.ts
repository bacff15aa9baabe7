import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createProxy } from 'proxy';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from './create-gateway.js';
import { LoopbackServers } from './testing/loopback-servers.test-helper.js';

// R8.8 with proxy support (decision 0220): the pass-through routes go over the same undici dispatcher as
// the recovery routes, so HTTP_PROXY / NO_PROXY from the gateway's env apply to them too.
const servers = new LoopbackServers();
let gateway: Gateway | undefined;

afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  await servers.closeAll();
});

async function listen(server: Server): Promise<string> {
  return `http://127.0.0.1:${await servers.listen(server)}`;
}

async function startUpstream(): Promise<{ url: string; paths: string[] }> {
  const paths: string[] = [];
  const url = await listen(
    createServer((request, response) => {
      paths.push(`${request.method} ${request.url}`);
      request.resume();
      response.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_models' }).end('{"object":"list","data":[]}');
    }),
  );
  return { url, paths };
}

async function startProxy(): Promise<{ url: string; forwarded: string[] }> {
  const forwarded: string[] = [];
  const server = createServer();
  server.on('request', (request: IncomingMessage) => forwarded.push(`${request.method} ${request.url}`));
  return { url: await listen(createProxy(server)), forwarded };
}

async function startGateway(upstream: string, env: Record<string, string>): Promise<string> {
  gateway = createGateway({ port: 0, upstreams: { chat: `${upstream}/v1`, responses: `${upstream}/v1`, messages: upstream }, env, stats: undefined });
  await gateway.listen();
  return gateway.url!;
}

describe('pass-through routes honour the gateway env proxy variables', () => {
  it('HTTP_PROXY: GET /v1/models?limit=2 goes through the proxy, unchanged, and its answer comes back', async () => {
    const upstream = await startUpstream();
    const proxy = await startProxy();
    const url = await startGateway(upstream.url, { HTTP_PROXY: proxy.url });
    const response = await fetch(`${url}/v1/models?limit=2`, { headers: { authorization: 'Bearer sk-client' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('req_models');
    expect(await response.text()).toBe('{"object":"list","data":[]}');
    expect(proxy.forwarded).toEqual([`GET ${upstream.url}/v1/models?limit=2`]);
    expect(upstream.paths).toEqual(['GET /v1/models?limit=2']);
  });

  it('NO_PROXY naming the upstream bypasses the proxy', async () => {
    const upstream = await startUpstream();
    const proxy = await startProxy();
    const url = await startGateway(upstream.url, { HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' });
    const response = await fetch(`${url}/v1/models`, { headers: { authorization: 'Bearer sk-client' } });
    expect(response.status).toBe(200);
    await response.text();
    expect(proxy.forwarded).toEqual([]);
    expect(upstream.paths).toEqual(['GET /v1/models']);
  });

  it('a POST body streams through unchanged (count_tokens)', async () => {
    const upstream = await startUpstream();
    const url = await startGateway(upstream.url, {});
    const body = JSON.stringify({ model: 'claude-x', messages: [{ role: 'user', content: 'hi' }] });
    const response = await fetch(`${url}/v1/messages/count_tokens`, { method: 'POST', headers: { 'x-api-key': 'sk-ant-client', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' }, body });
    expect(response.status).toBe(200);
    await response.text();
    expect(upstream.paths).toEqual(['POST /v1/messages/count_tokens']);
  });
});
