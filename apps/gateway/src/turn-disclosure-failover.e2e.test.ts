import type { Protocol } from '@turnguard/core';
import { fault } from '@turnguard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TURN_HEADERS } from './forward/turn-disclosure.js';
import { MODES, PROTOCOLS, SHORT_SETTINGS, answerFrom, restOfDefaultAnswer, startFailoverHarness, type FailoverHarness, type Mode } from './testing/failover-harness.test-helper.js';
import { withoutTurnComment } from './testing/turn-comment.test-helper.js';

// R12.4 with R11: the client is told that its turn fell back (how many moves) or had its answer continued, and
// which model answered — headers on a JSON answer, the SSE comment before a stream's end — on all three protocols.
const cases = PROTOCOLS.flatMap((protocol) => MODES.map((mode) => [protocol, mode] as const));
const id = (protocol: Protocol, mode: Mode): string => `${protocol}-${mode}`;

let harness: FailoverHarness;
beforeAll(async () => {
  harness = await startFailoverHarness(SHORT_SETTINGS, ({ baseUrl }) => ({
    continuation: 'prefill',
    routing: {
      // A Chat server that continues a trailing assistant message: the continuation target of every family's cut.
      upstreams: { 'prefill-chat': { protocol: 'chat', baseUrl, apiKey: { env: 'OPENAI_API_KEY' }, prefill: 'trailing-message' } },
      models: Object.fromEntries(cases.map(([protocol, mode]) => [`continuer-${id(protocol, mode)}`, { upstream: 'prefill-chat' }])),
    },
  }));
});
afterAll(async () => harness?.close());

const PATHS: Record<Protocol, string> = { chat: '/v1/chat/completions', messages: '/v1/messages', responses: '/v1/responses' };

/** The client's raw request, so the test reads the response's own headers and bytes. */
async function ask(protocol: Protocol, mode: Mode, model: string, fallbacks: string[]): Promise<{ status: number; headers: Headers; body: string }> {
  const stream = mode === 'stream';
  const body =
    protocol === 'chat'
      ? { model, stream, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }
      : protocol === 'messages'
        ? { model, stream, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }
        : { model, stream, max_output_tokens: 64, input: 'hi' };
  const auth: Record<string, string> = protocol === 'messages' ? { 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' } : { authorization: 'Bearer sk-openai-test' };
  const response = await fetch(`${harness.gateway.url}${PATHS[protocol]}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth, 'x-turnguard-fallbacks': JSON.stringify(fallbacks) },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

/** What the client was told: the headers of a JSON answer, or the fields of the one SSE comment before a stream's end. */
function disclosed(mode: Mode, answer: { headers: Headers; body: string }): Record<string, string | undefined> {
  const names = Object.values(TURN_HEADERS).map((name) => name.slice('x-turnguard-'.length));
  if (mode === 'json') return Object.fromEntries(names.map((name) => [name, answer.headers.get(`x-turnguard-${name}`) ?? undefined]));
  // Exactly one comment, just before the protocol's last record; a stream's head left before the turn was known.
  withoutTurnComment(answer.body);
  expect(answer.headers.get(TURN_HEADERS.fallback)).toBeNull();
  const comment = /^: turnguard (.*)$/m.exec(answer.body)![1]!;
  const fields = Object.fromEntries(comment.split(' ').map((pair) => pair.split('=') as [string, string]));
  return Object.fromEntries(names.map((name) => [name, fields[name]]));
}

describe('the client is told about fail-over (R12.4, R11.7)', () => {
  it.each(cases)('%s, %s: a fault-free turn says it did not fall back and was not continued', async (protocol, mode) => {
    const primary = `calm-${id(protocol, mode)}`;
    harness.upstream.model(primary).always(answerFrom('primary'));
    const answer = await ask(protocol, mode, primary, [`unused-${id(protocol, mode)}`]);
    expect(answer.status).toBe(200);
    expect(harness.upstream.requestsFor(primary)).toHaveLength(1);
    expect(disclosed(mode, answer)).toEqual({
      'physical-requests': '1',
      recovered: 'false',
      fallback: 'false',
      'fallback-moves': undefined,
      'answered-by': primary,
      continued: 'false',
      'usage-complete': 'true',
    });
  });

  it.each(cases)('%s, %s: a turn that fell back says so, how many moves, and which model answered', async (protocol, mode) => {
    const primary = `gone-${id(protocol, mode)}`;
    const second = `too-long-${id(protocol, mode)}`;
    const fallback = `saved-by-${id(protocol, mode)}`;
    harness.upstream.model(primary).always(fault.contextLength());
    harness.upstream.model(second).always(fault.contextLength());
    harness.upstream.model(fallback).always(answerFrom('fallback'));
    const answer = await ask(protocol, mode, primary, [second, fallback]);
    expect(answer.status).toBe(200);
    expect([primary, second, fallback].map((model) => harness.upstream.requestsFor(model).length)).toEqual([1, 1, 1]);
    expect(disclosed(mode, answer)).toEqual({
      'physical-requests': '3',
      recovered: 'false',
      fallback: 'true',
      'fallback-moves': '2',
      'answered-by': fallback,
      continued: 'false',
      'usage-complete': 'true',
    });
  });

  it.each(cases)('%s, %s: a cut answer that was continued says so, and which model continued it', async (protocol, mode) => {
    const primary = `cut-${id(protocol, mode)}`;
    const continuer = `continuer-${id(protocol, mode)}`;
    // Anthropic's own API continues its final assistant message: a Messages primary continues itself; the
    // OpenAI families' own upstreams take no prefill, so the prefill-capable Chat server continues.
    const answeredBy = protocol === 'messages' ? primary : continuer;
    harness.upstream.model(primary).queue(fault.cut(), ...(protocol === 'messages' ? [restOfDefaultAnswer] : []));
    harness.upstream.model(continuer).queue(restOfDefaultAnswer);
    const answer = await ask(protocol, mode, primary, [continuer]);
    expect(answer.status).toBe(200);
    expect(harness.upstream.requestsFor(answeredBy).length).toBe(protocol === 'messages' ? 2 : 1);
    // A continuation is not a fallback move (R11.6, R11.7): the turn stayed on its answer.
    expect(disclosed(mode, answer)).toMatchObject({ 'physical-requests': '2', fallback: 'false', 'fallback-moves': undefined, 'answered-by': answeredBy, continued: 'true' });
  });

  it('a failed turn that fell back says it fell back but names no answering model', async () => {
    harness.upstream.model('lost-primary').always(fault.contextLength());
    harness.upstream.model('lost-fallback').always(fault.contextLength());
    const answer = await ask('chat', 'json', 'lost-primary', ['lost-fallback']);
    expect(answer.status).toBe(400);
    expect(disclosed('json', answer)).toMatchObject({ fallback: 'true', 'fallback-moves': '1', 'answered-by': undefined });
  });
});
