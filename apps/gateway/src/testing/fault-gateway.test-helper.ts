import type { Protocol } from '@turnguard/core';
import { createGateway, type Gateway, type GatewayOptions } from '../create-gateway.js';
import { RecordingSink } from './gateway-harness.test-helper.js';
import { startFaultUpstream, type FaultUpstream } from './fault-upstream.test-helper.js';

export interface FaultGateway {
  upstream: FaultUpstream;
  gateway: Gateway;
  sink: RecordingSink;
  /** A request to the gateway's route for `protocol` (streaming unless the body says otherwise). */
  post(protocol: Protocol, body?: Record<string, unknown>, signal?: AbortSignal, headers?: Record<string, string>): Promise<Response>;
  close(): Promise<void>;
}

const ROUTES: Record<Protocol, string> = { chat: '/v1/chat/completions', messages: '/v1/messages', responses: '/v1/responses' };

/**
 * A gateway on a loopback socket in front of a fault-injecting upstream
 * (fault-upstream.test-helper.ts), recording its stats samples and turns.
 * Retry backoff is 1–2 ms: no test sleeps for it.
 */
export async function startFaultGateway(options: GatewayOptions = {}): Promise<FaultGateway> {
  const upstream = await startFaultUpstream();
  const sink = new RecordingSink();
  const gateway = createGateway({
    port: 0,
    upstreams: { chat: `${upstream.baseUrl}/v1`, responses: `${upstream.baseUrl}/v1`, messages: upstream.baseUrl },
    env: {},
    retry: { initialDelayMs: 1, maxDelayMs: 2 },
    stats: sink,
    ...options,
  });
  await gateway.listen();
  return {
    upstream,
    gateway,
    sink,
    post: (protocol, body = {}, signal, headers = {}) =>
      fetch(`${gateway.url}${ROUTES[protocol]}`, {
        method: 'POST',
        ...(signal === undefined ? {} : { signal }),
        headers: { 'content-type': 'application/json', authorization: 'Bearer k', 'x-api-key': 'k', ...headers },
        body: JSON.stringify({ model: 'm', max_tokens: 4096, stream: true, ...(protocol === 'responses' ? { input: 'hi' } : { messages: [{ role: 'user', content: 'hi' }] }), ...body }),
      }),
    async close() {
      await gateway.close();
      await upstream.close();
    },
  };
}
