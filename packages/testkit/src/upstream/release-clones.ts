import type { SetupServer } from 'msw/node';

/**
 * msw tees every mocked response to hand a clone to its `response:mocked`
 * event (@mswjs/interceptors `fetch` interceptor, `FetchResponse.clone`).
 * Nobody reads that clone, and a tee cancels its source only when both
 * branches cancel, so a client's `reader.cancel()` (what openai-node's and
 * @anthropic-ai/sdk's stream iterators await on `break`) would hang forever.
 * Cancelling the clone branch at once lets client cancellation through.
 * Returns a function that removes the listener.
 */
export function releaseMockedResponseClones(server: Pick<SetupServer, 'events'>): () => void {
  const listener = ({ response }: { response: Response }): void => {
    response.body?.cancel().catch(() => undefined);
  };
  server.events.on('response:mocked', listener);
  return () => server.events.removeListener('response:mocked', listener);
}
