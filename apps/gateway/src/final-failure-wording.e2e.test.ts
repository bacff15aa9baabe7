import { scenario } from '@turnguard/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './testing/gateway-harness.test-helper.js';

// R8.3: a final failure the gateway writes is read by a client (an SDK, a CLI), so it never says "the host": a stream's
// names the client, which read part of the answer; a JSON 502's names the gateway, since none of it reached the client.
let harness: Harness;

beforeEach(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness.close();
});

const REQUESTS = {
  chat: { path: '/v1/chat/completions', body: { model: 'm', messages: [{ role: 'user', content: 'q' }] } },
  messages: { path: '/v1/messages', body: { model: 'm', max_tokens: 1000, messages: [{ role: 'user', content: 'q' }] } },
  responses: { path: '/v1/responses', body: { model: 'm', input: 'q' } },
} as const;
const LONG_ANSWER = 'a partial answer of many words that the upstream cuts before its end, mid-way';

function post(protocol: keyof typeof REQUESTS, stream: boolean): Promise<Response> {
  const { path, body } = REQUESTS[protocol];
  return fetch(`${harness.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer k', 'x-api-key': 'k' },
    body: JSON.stringify({ ...body, stream }),
  });
}

describe.each(['chat', 'messages', 'responses'] as const)('%s: a turn cut after output', (protocol) => {
  it('streamed: the in-stream error says the output reached the client', async () => {
    harness.upstream[protocol].enqueue(scenario.for(protocol).text(LONG_ANSWER).eof({ afterEvents: 7 }) as never);
    const text = await (await post(protocol, true)).text();
    expect(text).toMatch(/reached the client/);
    expect(text).not.toMatch(/\bhost\b/);
  });

  it('as JSON: the 502 body says the output reached the gateway (none reached the client)', async () => {
    harness.upstream[protocol].enqueue(scenario.for(protocol).text(LONG_ANSWER).destroySocket({ afterEvents: 7 }) as never);
    const response = await post(protocol, false);
    expect(response.status).toBe(502);
    const text = await response.text();
    expect(text).toMatch(/reached the gateway/);
    expect(text).not.toMatch(/client/);
    expect(text).not.toMatch(/\bhost\b/);
  });
});
