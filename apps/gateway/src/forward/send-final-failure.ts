import type { ServerResponse } from 'node:http';
import type { Protocol, TurnError } from '@turnguard/core';
import { sendProtocolError } from '../http/send-json.js';
import { selectRelayedResponseHeaders } from './forwarded-headers.js';
import type { UpstreamResponses } from './record-upstream-responses.js';

/**
 * A turn's final failure as an HTTP answer (no SSE sent yet). When it is the
 * upstream's own HTTP error (a 400, a 429 or 5xx whose retries ran out) the
 * client gets that response as it came — status, headers, body — so the
 * SDK's `err.code`, `err.param`, `err.requestID` are the direct ones (R8.6);
 * Codex branches on `context_length_exceeded`. Otherwise (a cut, a time
 * limit, a transport failure) the gateway's own error in the protocol's
 * shape, with the last upstream response's headers (its request id, rate
 * limits: what the client quotes to support, as a streamed failure keeps
 * them on its 200), decision 0236. Both carry `x-should-retry: false`
 * (R8.10, decision 0231).
 */
export function sendFinalFailure(response: ServerResponse, protocol: Protocol, error: TurnError, upstream: UpstreamResponses): void {
  if (response.headersSent || response.destroyed) return;
  const seen = upstream.lastError;
  const isUpstreamsOwn = seen !== undefined && upstream.last === seen && seen.errorBody !== undefined && error.kind !== 'stream_cut' && error.status === seen.status;
  if (!isUpstreamsOwn) {
    const seenHeaders = upstream.last === undefined ? {} : selectRelayedResponseHeaders(upstream.last.headers);
    sendProtocolError(response, protocol, wordForClient(error), undefined, seenHeaders);
    return;
  }
  const body = seen.errorBody!;
  response.writeHead(seen.status, {
    ...selectRelayedResponseHeaders(seen.headers),
    'content-type': seen.headers['content-type'] ?? 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    // The gateway already retried what was retryable: a resend by the client only repeats the turn.
    'x-should-retry': 'false',
  });
  response.end(body);
}

/**
 * core words its errors for the program that called runTurn, "the host";
 * through the gateway the reader is the client (the SDK or CLI that sent the
 * request), so every failure the gateway writes, as JSON or in-stream, names
 * it so (R8.3).
 */
export function wordForClient(error: TurnError): TurnError {
  const message = error.message.replace(/\b([Tt]he) host('s)?\b/g, (_match, article: string, possessive: string | undefined) => `${article} client${possessive ?? ''}`);
  return message === error.message ? error : error.with({ message });
}
