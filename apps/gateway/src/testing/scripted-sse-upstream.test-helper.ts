import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FetchFunction, Protocol } from '@turnguard/core';
import { createGateway, type Gateway } from '../create-gateway.js';

/** SSE text (written in uneven pieces so records straddle network reads), or a function that writes the answer itself. */
export type ScriptedReply = string | ((response: ServerResponse) => void);

export interface ScriptedGateway {
  gateway: Gateway;
  /** The scripted upstream's own base URL, for the same reply direct (SDK baselines). */
  upstreamBase: string;
  /** Answers for the next upstream requests, in order; an empty queue answers an empty 200 stream. */
  replies: ScriptedReply[];
  /** Every request body the upstream received, parsed. */
  bodies: Array<Record<string, unknown>>;
  /** A streamed request to the gateway's route for `protocol`. */
  post(protocol: Protocol, body: Record<string, unknown>, signal?: AbortSignal): Promise<Response>;
  close(): Promise<void>;
}

const ROUTES: Record<Protocol, string> = { chat: '/v1/chat/completions', messages: '/v1/messages', responses: '/v1/responses' };
const PIECE_OFFSETS = [0, 7, 100, 101, 333, 1000, 4096];

/**
 * A gateway on a loopback socket in front of an upstream that answers from a
 * script of raw SSE bytes (real recordings, hand-made streams), for tests
 * about the exact bytes relayed. Retry backoff is 1–2 ms: no test sleeps.
 */
export async function startScriptedGateway(options: { fetch?: FetchFunction | undefined } = {}): Promise<ScriptedGateway> {
  const replies: ScriptedReply[] = [];
  const bodies: Array<Record<string, unknown>> = [];
  const upstream = createServer((request, response) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (part: string) => (text += part));
    request.on('end', () => {
      bodies.push(JSON.parse(text) as Record<string, unknown>);
      const reply = replies.shift() ?? '';
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      if (typeof reply === 'function') {
        reply(response);
        return;
      }
      const bytes = Buffer.from(reply, 'utf8');
      const pieces = PIECE_OFFSETS.filter((at) => at < bytes.length);
      pieces.forEach((at, index) => response.write(bytes.subarray(at, pieces[index + 1] ?? bytes.length)));
      response.end();
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const gateway = createGateway({ port: 0, upstreams: { chat: `${base}/v1`, responses: `${base}/v1`, messages: base }, env: {}, retry: { initialDelayMs: 1, maxDelayMs: 2 }, ...(options.fetch === undefined ? {} : { fetch: options.fetch }) });
  await gateway.listen();
  return {
    gateway,
    upstreamBase: base,
    replies,
    bodies,
    post: (protocol, body, signal) =>
      fetch(`${gateway.url}${ROUTES[protocol]}`, {
        method: 'POST',
        ...(signal === undefined ? {} : { signal }),
        headers: { 'content-type': 'application/json', authorization: 'Bearer k', 'x-api-key': 'k' },
        body: JSON.stringify({ model: 'm', max_tokens: 64, stream: true, ...body }),
      }),
    async close() {
      await gateway.close();
      await new Promise<void>((resolve) => upstream.close(() => resolve()));
    },
  };
}
