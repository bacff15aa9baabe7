import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { createMockUpstream, type MockUpstream } from './mock-upstream.js';
import { releaseMockedResponseClones } from './release-clones.js';

/** Where the SDK conformance tests mount the mock upstream's three routes. */
export const MOCK_BASE_URL = 'https://api.test/v1';

export interface SdkUpstream<Client> {
  readonly upstream: MockUpstream;
  /** The SDK client; built in `beforeAll`, so read it inside tests only. */
  readonly client: Client;
}

/**
 * Registers the suite hooks every SDK-over-testkit test needs: one mock
 * upstream served through msw at MOCK_BASE_URL (unhandled requests fail),
 * mocked-response clones released so client cancellation does not hang, the
 * upstream reset after each test and the server closed at the end.
 * `createClient` runs in `beforeAll`, after msw patched fetch, because
 * openai-node and @anthropic-ai/sdk capture `globalThis.fetch` when constructed.
 */
export function useSdkUpstream<Client>(createClient: () => Client): SdkUpstream<Client> {
  const upstream = createMockUpstream();
  const server = setupServer(...upstream.handlers(MOCK_BASE_URL));
  let client: Client | undefined;
  beforeAll(() => {
    server.listen({ onUnhandledRequest: 'error' });
    releaseMockedResponseClones(server);
    client = createClient();
  });
  afterEach(() => upstream.reset());
  afterAll(() => server.close());
  return {
    upstream,
    get client(): Client {
      if (client === undefined) throw new Error('useSdkUpstream: the client is built in beforeAll; read it inside a test');
      return client;
    },
  };
}
