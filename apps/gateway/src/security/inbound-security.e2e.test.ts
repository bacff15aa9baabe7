import { scenario } from '@turnguard/testkit';
import { TurnError } from '@turnguard/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway } from '../create-gateway.js';
import { startHarness, type Harness } from '../testing/gateway-harness.test-helper.js';
import { rawRequest } from '../testing/raw-http.test-helper.js';
import { withholdEnvironmentKeys } from './withhold-environment-keys.js';

// Real sockets: a raw node:http client → gateway → testkit loopback upstream (no msw).
const ENV_KEY = 'sk-env-key-of-the-gateway-000000';
const TOKEN = 'gateway-token-0123456789abcdef';
const chatBody = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
let harness: Harness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function start(options: Parameters<typeof startHarness>[0] = {}): Promise<Harness> {
  harness = await startHarness({ env: { OPENAI_API_KEY: ENV_KEY }, ...options });
  return harness;
}

function post(h: Harness, headers: Record<string, string>, path = '/v1/chat/completions') {
  const port = new URL(h.url).port;
  return rawRequest(h.url, { path, headers: { host: `127.0.0.1:${port}`, 'content-type': 'application/json', ...headers }, body: chatBody });
}

describe('R8.9 Host allow-list (DNS rebinding)', () => {
  it('a foreign Host is refused with 403 and the upstream sees nothing', async () => {
    const h = await start();
    const reply = await post(h, { host: 'evil.example:8787' });
    expect(reply.status).toBe(403);
    expect(JSON.parse(reply.body).error.code).toBe('GATEWAY_FORBIDDEN_HOST');
    expect(h.upstream.requests).toHaveLength(0);
  });

  it('loopback names (localhost, [::1], 127.0.0.1) and configured names are served', async () => {
    const h = await start({ allowedHosts: ['gateway.internal'] });
    for (const host of ['localhost:1', '[::1]:1', '127.0.0.1', 'LOCALHOST', 'gateway.internal:8787']) {
      h.upstream.chat.enqueue(scenario.chat().text('ok'));
      const reply = await post(h, { host });
      expect(reply.status, host).toBe(200);
    }
    expect(h.upstream.requests).toHaveLength(5);
  });
});

describe('R8.9 browser Origin and CORS (opt-in)', () => {
  it('a foreign Origin with text/plain (a "simple" request, no preflight) is refused; the env key is never used', async () => {
    const h = await start();
    const reply = await post(h, { origin: 'https://evil.example', 'content-type': 'text/plain' });
    expect(reply.status).toBe(403);
    expect(JSON.parse(reply.body).error.code).toBe('GATEWAY_FORBIDDEN_ORIGIN');
    expect(reply.headers['access-control-allow-origin']).toBeUndefined();
    expect(h.upstream.requests).toHaveLength(0);
  });

  it('a configured origin gets CORS headers on its request and a 204 preflight; another origin\'s preflight is 403', async () => {
    const h = await start({ corsOrigins: ['https://app.example'] });
    h.upstream.chat.enqueue(scenario.chat().text('ok'));
    const reply = await post(h, { origin: 'https://app.example', authorization: 'Bearer sk-client-key-000000000000' });
    expect(reply.status).toBe(200);
    expect(reply.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(reply.headers.vary).toContain('Origin');
    const port = new URL(h.url).port;
    const preflight = (origin: string) =>
      rawRequest(h.url, {
        method: 'OPTIONS',
        path: '/v1/chat/completions',
        headers: { host: `localhost:${port}`, origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
      });
    const allowed = await preflight('https://app.example');
    expect(allowed.status).toBe(204);
    expect(allowed.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(allowed.headers['access-control-allow-methods']).toContain('POST');
    expect(allowed.headers['access-control-allow-headers']).toBe('authorization, content-type');
    const refused = await preflight('https://evil.example');
    expect(refused.status).toBe(403);
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
    expect(h.upstream.requests).toHaveLength(1);
  });
});

describe('R8.9 gateway token', () => {
  it('with a token, a keyless request without it is 401 and the upstream sees nothing; a wrong token too', async () => {
    const h = await start({ authToken: TOKEN });
    for (const headers of [{}, { 'x-turnguard-token': 'wrong-token-0123456789abcdef' }, { authorization: 'Bearer sk-client-key-000000000000' }] as Array<Record<string, string>>) {
      const reply = await post(h, headers);
      expect(reply.status).toBe(401);
      expect(JSON.parse(reply.body).error.code).toBe('GATEWAY_UNAUTHORIZED');
      expect(reply.headers['www-authenticate']).toContain('Bearer');
    }
    expect(h.upstream.requests).toHaveLength(0);
    expect((await post(h, {}, '/metrics')).status).toBe(401);
  });

  it('the token as the client\'s key: the env key goes upstream, the token never does', async () => {
    const h = await start({ authToken: TOKEN });
    h.upstream.chat.enqueue(scenario.chat().text('ok'), scenario.chat().text('ok'));
    expect((await post(h, { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    expect((await post(h, { 'x-api-key': TOKEN })).status).toBe(200);
    for (const request of h.upstream.requests) {
      expect(request.headers.authorization).toBe(`Bearer ${ENV_KEY}`);
      expect(JSON.stringify(request.headers)).not.toContain(TOKEN);
    }
  });

  it('the token in x-turnguard-token beside the client\'s own key: the client\'s key goes upstream, the token header does not', async () => {
    const h = await start({ authToken: TOKEN });
    h.upstream.chat.enqueue(scenario.chat().text('ok'));
    expect((await post(h, { 'x-turnguard-token': TOKEN, authorization: 'Bearer sk-client-key-000000000000' })).status).toBe(200);
    const seen = h.upstream.requests[0]!.headers;
    expect(seen.authorization).toBe('Bearer sk-client-key-000000000000');
    expect(seen['x-turnguard-token']).toBeUndefined();
    expect(JSON.stringify(seen)).not.toContain(TOKEN);
  });

  it('/healthz answers without the token (a load balancer probe); the Host check still applies', async () => {
    const h = await start({ authToken: TOKEN });
    const port = new URL(h.url).port;
    expect((await rawRequest(h.url, { method: 'GET', path: '/healthz', headers: { host: `127.0.0.1:${port}` } })).status).toBe(200);
    expect((await rawRequest(h.url, { method: 'GET', path: '/healthz', headers: { host: 'evil.example' } })).status).toBe(403);
  });
});

describe('R8.9 off loopback', () => {
  it('refuses to start without a token, naming the way out; a token or the loud override lets it start', () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.20']) {
      let error: unknown;
      try {
        createGateway({ host, port: 0 });
      } catch (caught) {
        error = caught;
      }
      expect(TurnError.isInstance(error) && error.code).toBe('GATEWAY_INVALID_CONFIG');
      expect((error as Error).message).toMatch(/without a gateway token.*TURNGUARD_AUTH_TOKEN.*--dangerously-allow-unauthenticated-network/);
    }
    expect(createGateway({ host: '0.0.0.0', authToken: TOKEN }).config.authToken).toBe(TOKEN);
    expect(createGateway({ host: '0.0.0.0', dangerouslyAllowUnauthenticatedNetwork: true }).config.host).toBe('0.0.0.0');
  });

  it('the environment\'s provider keys are withheld when nobody authenticates (off loopback, no token)', () => {
    const env = { OPENAI_API_KEY: ENV_KEY, ANTHROPIC_API_KEY: 'sk-ant-env', TURNGUARD_X: '1' };
    expect(withholdEnvironmentKeys({ host: '0.0.0.0', authToken: undefined }, env)).toEqual({ TURNGUARD_X: '1' });
    expect(withholdEnvironmentKeys({ host: '0.0.0.0', authToken: TOKEN }, env)).toBe(env);
    expect(withholdEnvironmentKeys({ host: '127.0.0.1', authToken: undefined }, env)).toBe(env);
  });
});
