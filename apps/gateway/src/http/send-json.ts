import type { ServerResponse } from 'node:http';
import type { Protocol, TurnError } from '@turnguard/core';
import { buildErrorBody, selectFailureStatus } from './protocol-error-body.js';

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string | string[]> = {}): void {
  if (response.headersSent || response.destroyed) return;
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  response.end(text);
}

/**
 * A failure as JSON in the protocol's own error shape. Every one carries
 * `x-should-retry: false`, which openai-node and anthropic-sdk-typescript
 * both obey (their `shouldRetry` reads it first): the gateway already
 * retried what was retryable, so a `STREAM_CUT` 502 or an exhausted 529 does
 * not make the SDK resend the whole long turn (R4.9, R8.10, decision 0231).
 */
export function sendProtocolError(
  response: ServerResponse,
  protocol: Protocol,
  error: TurnError,
  status = selectFailureStatus(error),
  upstreamHeaders: Record<string, string | string[]> = {},
): void {
  const headers: Record<string, string | string[]> = { ...upstreamHeaders, 'x-should-retry': 'false' };
  if (error.retryAfterMs !== undefined && error.retryable) headers['retry-after-ms'] = String(Math.ceil(error.retryAfterMs));
  if (error.requestId !== undefined) headers['x-upstream-request-id'] = error.requestId;
  sendJson(response, status, buildErrorBody(protocol, error), headers);
}
