import { createServer } from 'node:http';
import { scenario } from '@turnguard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../create-gateway.js';
import { startHarness, type Harness } from '../testing/gateway-harness.test-helper.js';
import { LoopbackServers } from '../testing/loopback-servers.test-helper.js';
import { captureLog } from '../testing/captured-log.test-helper.js';
import { rawRequest } from '../testing/raw-http.test-helper.js';
import { REQUEST_ID_HEADER } from './request-id.js';

// R12.3: a request id on every log line, echoed to the client; R8.6: the upstream still gets the client's headers, only those.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
let harness: Harness | undefined;
let gateway: Gateway | undefined;
const servers = new LoopbackServers();

afterEach(async () => {
  await harness?.close();
  await gateway?.close();
  await servers.closeAll();
  harness = undefined;
  gateway = undefined;
});

function postChat(h: Harness, headers: Record<string, string>): Promise<Response> {
  return fetch(`${h.openAiBaseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-client', ...headers },
    body: JSON.stringify({ model: 'gpt-test', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });
}

describe('R12.3 request ids', () => {
  it("the client's x-request-id is the log's id, echoed in x-turnguard-request-id; the upstream's own x-request-id reaches the client", async () => {
    const log = captureLog();
    harness = await startHarness({ logDestination: log.destination });
    harness.upstream.chat.enqueue(scenario.chat().text('hello').headers({ 'x-request-id': 'req_upstream_1' }));
    const response = await postChat(harness, { 'x-request-id': 'client-req-42' });
    await response.text();
    expect(response.headers.get(REQUEST_ID_HEADER)).toBe('client-req-42');
    expect(response.headers.get('x-request-id')).toBe('req_upstream_1');
    // R4.6 (decision 0230): on a recovery route each physical request carries core's own fresh id, not the client's.
    expect(harness.upstream.requests[0]!.headers['x-request-id']).not.toBe('client-req-42');
    const lines = await log.waitFor('request', 1);
    expect(lines.filter((line) => line.msg === 'request')).toEqual([expect.objectContaining({ requestId: 'client-req-42', route: '/v1/chat/completions', status: 200 })]);
  });

  it('without one, a new UUID is made up, echoed and logged, and NOT sent upstream (the upstream request stays the client’s)', async () => {
    const log = captureLog();
    harness = await startHarness({ logDestination: log.destination });
    harness.upstream.chat.enqueue(scenario.chat().text('hello'));
    const response = await postChat(harness, {});
    await response.text();
    const id = response.headers.get(REQUEST_ID_HEADER);
    expect(id).toMatch(UUID);
    expect(JSON.stringify(harness.upstream.requests[0]!.headers)).not.toContain(id);
    const lines = await log.waitFor('request', 1);
    expect(lines.find((line) => line.msg === 'request')?.requestId).toBe(id);
  });

  it('an x-request-id that is not an id (free text) is replaced, and its text is never logged', async () => {
    const log = captureLog();
    harness = await startHarness({ logDestination: log.destination });
    harness.upstream.chat.enqueue(scenario.chat().text('hello'));
    const response = await postChat(harness, { 'x-request-id': 'MARKREQID9 please summarise my diary' });
    await response.text();
    expect(response.headers.get(REQUEST_ID_HEADER)).toMatch(UUID);
    await log.waitFor('request', 1);
    expect(JSON.stringify(log.lines())).not.toContain('MARKREQID9');
  });

  it('a pass-through route forwards the client’s x-request-id unchanged (R8.6, R8.8)', async () => {
    const received: Array<string | string[] | undefined> = [];
    const upstreamPort = await servers.listen(createServer((request, response) => {
      received.push(request.headers['x-request-id']);
      response.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_models_1' }).end('{"data":[]}');
    }));
    const base = `http://127.0.0.1:${upstreamPort}/v1`;
    gateway = createGateway({ port: 0, env: {}, upstreams: { chat: base, responses: base, messages: base } });
    await gateway.listen();
    const response = await fetch(`${gateway.url}/v1/models`, { headers: { authorization: 'Bearer sk-client', 'x-request-id': 'client-req-7' } });
    await response.text();
    expect(received).toEqual(['client-req-7']);
    expect(response.headers.get(REQUEST_ID_HEADER)).toBe('client-req-7');
    expect(response.headers.get('x-request-id')).toBe('req_models_1');
  });

  it('every answer carries an id: a refusal, a health check, a pass-through route; each has its own line', async () => {
    const log = captureLog();
    harness = await startHarness({ logDestination: log.destination });
    const refused = await rawRequest(harness.url, { path: '/v1/chat/completions', headers: { host: 'evil.example', 'x-request-id': 'refused-1' }, body: '{}' });
    const health = await fetch(`${harness.url}/healthz`);
    const passThrough = await fetch(`${harness.openAiBaseUrl}/models`, { headers: { authorization: 'Bearer sk-client' } });
    await passThrough.text();
    expect(refused.headers[REQUEST_ID_HEADER]).toBe('refused-1');
    expect(health.headers.get(REQUEST_ID_HEADER)).toMatch(UUID);
    expect(passThrough.headers.get(REQUEST_ID_HEADER)).toMatch(UUID);
    const lines = (await log.waitFor('request', 3)).filter((line) => line.msg === 'request');
    expect(lines.map(({ requestId, route, outcome, upstream }) => ({ requestId, route, outcome, upstream }))).toEqual([
      { requestId: 'refused-1', route: '/v1/chat/completions', outcome: 'GATEWAY_FORBIDDEN_HOST', upstream: undefined },
      { requestId: health.headers.get(REQUEST_ID_HEADER), route: '/healthz', outcome: 'OK', upstream: undefined },
      { requestId: passThrough.headers.get(REQUEST_ID_HEADER), route: '/v1/models', outcome: 'PASS_THROUGH', upstream: new URL(harness.upstream.baseUrl).host },
    ]);
  });
});
