import { createMockUpstream, type MockUpstream } from '@turnguard/testkit';
import { setupServer, type SetupServer } from 'msw/node';
import { BASE_URL } from './turn-harness.js';

/**
 * msw tees every mocked response for its `response:mocked` event; an unread
 * clone would keep a cancelled body open. Same workaround as testkit's
 * internal release-clones.ts (not exported from @turnguard/testkit).
 */
function releaseClones(server: SetupServer): void {
  server.events.on('response:mocked', ({ response }) => {
    response.body?.cancel().catch(() => undefined);
  });
}

export function startUpstream(): { upstream: MockUpstream; server: SetupServer } {
  const upstream = createMockUpstream();
  const server = setupServer(...upstream.handlers(BASE_URL));
  server.listen({ onUnhandledRequest: 'error' });
  releaseClones(server);
  return { upstream, server };
}
