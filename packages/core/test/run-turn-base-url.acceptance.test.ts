/**
 * Decision 0260: every adapter takes `target.baseUrl` with or
 * without `/v1` (one rule), so a Messages base of `…/v1` no longer posts to
 * `/v1/v1/messages`. Asserted on the physical requests the msw upstream saw.
 */
import { scenario } from '@turnguard/testkit';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startUpstream } from './msw-upstream.js';
import { collectEvents, enqueue, PROTOCOLS, startTurn, textOf } from './turn-harness.js';

const { upstream, server } = startUpstream();
afterEach(() => upstream.reset());
afterAll(() => server.close());

const ENDPOINT = { chat: '/v1/chat/completions', messages: '/v1/messages', responses: '/v1/responses' } as const;

describe.each(PROTOCOLS)('baseUrl with or without /v1 over %s (decision 0260)', (protocol) => {
  for (const baseUrl of ['https://upstream.test', 'https://upstream.test/', 'https://upstream.test/v1', 'https://upstream.test/v1/']) {
    it(`${baseUrl} posts to ${ENDPOINT[protocol]}`, async () => {
      enqueue(upstream, protocol, scenario.for(protocol).text('Fine.'));
      // The harness's own base-URL convention is bypassed: the target is built from `baseUrl` as given.
      const { run } = startTurn(protocol, { target: { baseUrl, apiKey: 'sk-test' } });
      const events = await collectEvents(run);
      expect((await run.result).outcome).toBe('ok');
      expect(textOf(events)).toBe('Fine.');
      const [request] = upstream.requestsFor(protocol);
      expect(new URL(request!.url).pathname).toBe(ENDPOINT[protocol]);
    });
  }
});
