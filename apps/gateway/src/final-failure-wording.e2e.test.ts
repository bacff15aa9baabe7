import { scenario } from '@turnguard/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './testing/gateway-harness.test-helper.js';

// R8.3: a final failure the gateway writes is read by a client (an SDK, a CLI), so it never says "the host": a stream's
// names the client, which read part of the answer; a JSON client read none of it, so its answer was restarted and its
// 502 is the upstream's own failure (decision 0430).
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
/** The gateway's budget: attempts on one target (INTERACTIVE_RETRY_BUDGET). */
const ATTEMPTS_PER_TARGET = 5;
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

  it('as JSON: every restart cut, the 502 names the upstream\'s failure as a direct client would read it (none reached the client)', async () => {
    // A JSON client was shown nothing: each cut answer is restarted (decision 0430) until the budget's attempts are spent.
    for (let attempt = 0; attempt < ATTEMPTS_PER_TARGET; attempt += 1) harness.upstream[protocol].enqueue(scenario.for(protocol).text(LONG_ANSWER).destroySocket({ afterEvents: 7 }) as never);
    const response = await post(protocol, false);
    expect(harness.upstream.requests).toHaveLength(ATTEMPTS_PER_TARGET);
    expect(response.status).toBe(502);
    const text = await response.text();
    expect(text).toMatch(/The connection to the upstream failed/);
    expect(text).not.toMatch(/client/);
    expect(text).not.toMatch(/\bhost\b/);
  });
});
