import { chatAdapter } from '@turnguard/adapter-chat';
import { messagesAdapter } from '@turnguard/adapter-messages';
import { responsesAdapter } from '@turnguard/adapter-responses';
import { classifyFailure, type FailureClass, type Protocol, type ProtocolAdapter } from '@turnguard/core';
import { fault, startFaultUpstream, type Fault, type FaultUpstream } from '@turnguard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The bridge between the fault upstream and the fail-over rules (R11.2):
 * every HTTP fault it plays, read by the real adapter of its protocol, lands
 * in the failure class the rules act on — so the acceptance suite's faults
 * are the ones the rules were written for.
 */
const ADAPTERS: Record<Protocol, ProtocolAdapter<never>> = {
  chat: chatAdapter as ProtocolAdapter<never>,
  messages: messagesAdapter as ProtocolAdapter<never>,
  responses: responsesAdapter as ProtocolAdapter<never>,
};
const PATHS: Record<Protocol, string> = { chat: '/v1/chat/completions', messages: '/v1/messages', responses: '/v1/responses' };

describe('R11.2 the fault upstream\'s HTTP faults, classified by each protocol\'s adapter', () => {
  let upstream: FaultUpstream;
  beforeAll(async () => {
    upstream = await startFaultUpstream();
  });
  afterAll(async () => {
    await upstream.close();
  });

  const cases: Array<[string, Fault, Record<Protocol, FailureClass>]> = [
    ['429 with Retry-After', fault.rateLimited({ retryAfterSeconds: 3 }), { chat: 'transient', messages: 'transient', responses: 'transient' }],
    ['500', fault.serverError(), { chat: 'transient', messages: 'transient', responses: 'transient' }],
    ['503', fault.unavailable(), { chat: 'transient', messages: 'transient', responses: 'transient' }],
    ['context length', fault.contextLength(), { chat: 'context-length', messages: 'context-length', responses: 'context-length' }],
    ['content filter (Messages answers with a refusal stop instead)', fault.contentFilter(), { chat: 'content-filter', messages: 'final', responses: 'content-filter' }],
    ['prefill refused', fault.prefillRefused(), { chat: 'prefill-refused', messages: 'prefill-refused', responses: 'prefill-refused' }],
  ];

  for (const [name, scripted, expected] of cases) {
    it.each(['chat', 'messages', 'responses'] as const)(`${name}: %s`, async (protocol) => {
      const model = `${name}-${protocol}`;
      upstream.model(model).queue(scripted);
      const response = await fetch(`${upstream.url}${PATHS[protocol]}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model, stream: true, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }], input: 'hi' }),
      });
      const text = await response.text();
      if (response.status === 200) {
        // Anthropic's refusal is an answer, not an error: nothing to fail over from.
        expect(text).toContain('"stop_reason":"refusal"');
        expect(expected[protocol]).toBe('final');
        return;
      }
      const error = ADAPTERS[protocol].classifyError(response.status, response.headers, text);
      expect(classifyFailure(error)).toBe(expected[protocol]);
      if (name.startsWith('429')) expect(error.retryAfterMs).toBe(3000);
    });
  }
});
