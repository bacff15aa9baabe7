import type { ServerResponse } from 'node:http';
import type { Protocol, TurnError } from '@turnguard/core';
import { buildErrorBody, selectFailureStatus } from './protocol-error-body.js';

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
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
 * A failure as JSON in the protocol's own error shape. A non-retryable
 * failure carries `x-should-retry: false`, which openai-node and
 * anthropic-sdk-typescript both obey (their `shouldRetry` reads it first), so
 * a `STREAM_CUT` 502 does not make the SDK resend the whole long turn (R4.9).
 */
export function sendProtocolError(response: ServerResponse, protocol: Protocol, error: TurnError, status = selectFailureStatus(error)): void {
  const headers: Record<string, string> = error.retryable ? {} : { 'x-should-retry': 'false' };
  if (error.retryAfterMs !== undefined && error.retryable) headers['retry-after-ms'] = String(Math.ceil(error.retryAfterMs));
  if (error.requestId !== undefined) headers['x-upstream-request-id'] = error.requestId;
  sendJson(response, status, buildErrorBody(protocol, error), headers);
}
