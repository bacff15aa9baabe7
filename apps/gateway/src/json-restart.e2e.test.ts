import type { Protocol } from '@turnguard/core';
import { fault } from '@turnguard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TURN_HEADERS } from './forward/turn-disclosure.js';
import { PROTOCOLS, SHORT_SETTINGS, answerFrom, startFailoverHarness, type FailoverHarness } from './testing/failover-harness.test-helper.js';

// Decision 0430 (R11.2, R5, R12.4): a JSON client is shown nothing until the turn ends, so an answer cut after text is
// dropped and the fallback answers from scratch — and what the client is told (model, usage, x-turnguard-* headers)
// is the answer's: two physical requests, one fallback, the fallback's model and its usage alone.
let harness: FailoverHarness;
beforeAll(async () => {
  harness = await startFailoverHarness(SHORT_SETTINGS);
});
afterAll(async () => harness?.close());

const PATHS: Record<Protocol, string> = { chat: '/v1/chat/completions', messages: '/v1/messages', responses: '/v1/responses' };

async function askJson(protocol: Protocol, model: string, fallbacks: string[]): Promise<{ status: number; headers: Headers; json: Record<string, unknown> }> {
  const body =
    protocol === 'responses' ? { model, stream: false, max_output_tokens: 64, input: 'hi' } : { model, stream: false, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] };
  const auth: Record<string, string> = protocol === 'messages' ? { 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' } : { authorization: 'Bearer sk-openai-test' };
  const response = await fetch(`${harness.gateway.url}${PATHS[protocol]}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth, 'x-turnguard-fallbacks': JSON.stringify(fallbacks) },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, json: (await response.json()) as Record<string, unknown> };
}

describe.each(PROTOCOLS)('%s, JSON: a cut answer restarted on the fallback tells the truth about the answer', (protocol) => {
  it('model, usage and x-turnguard-* headers are the fallback answer\'s', async () => {
    const primary = `restart-p-${protocol}`;
    const fallback = `restart-b-${protocol}`;
    const calm = `restart-calm-${protocol}`;
    harness.upstream.model(primary).always(fault.cut());
    harness.upstream.model(fallback).always(answerFrom('fallback'));
    harness.upstream.model(calm).always(answerFrom('fallback'));
    // The same answer asked for directly: the usage the client must get (none of the cut attempt's added).
    const direct = await askJson(protocol, calm, []);
    const answer = await askJson(protocol, primary, [fallback]);
    expect(answer.status).toBe(200);
    expect([harness.upstream.requestsFor(primary).length, harness.upstream.requestsFor(fallback).length]).toEqual([1, 1]);
    expect(answer.json['model']).toBe(fallback);
    expect(answer.json['usage']).toEqual(direct.json['usage']);
    expect(answer.headers.get(TURN_HEADERS.physicalRequests)).toBe('2');
    expect(answer.headers.get(TURN_HEADERS.fallback)).toBe('true');
    expect(answer.headers.get(TURN_HEADERS.fallbackMoves)).toBe('1');
    expect(answer.headers.get(TURN_HEADERS.answeredBy)).toBe(fallback);
    expect(answer.headers.get(TURN_HEADERS.continued)).toBe('false');
    expect(answer.headers.get(TURN_HEADERS.usageComplete)).toBe('true');
  });
});
