import { describe, expect, it } from 'vitest';
import { RECOVERY_ROUTE_OWN_REQUEST_HEADERS, selectForwardedRequestHeaders, selectRelayedResponseHeaders } from './forwarded-headers.js';

describe('R8.6 which headers cross the gateway', () => {
  it('request: everything but hop-by-hop headers, the ones `connection` lists, and the gateway’s own', () => {
    const forwarded = selectForwardedRequestHeaders(
      {
        host: 'localhost:4000',
        connection: 'keep-alive, x-hop',
        'x-hop': 'scoped to this connection',
        'keep-alive': 'timeout=5',
        te: 'trailers',
        'transfer-encoding': 'chunked',
        'content-length': '12',
        accept: 'application/json',
        'accept-encoding': 'gzip, br, zstd',
        'content-type': 'application/json',
        authorization: 'Bearer t',
        'anthropic-version': '2024-10-22',
        'x-stainless-os': 'Linux',
        'x-multi': ['a', 'b'],
      },
      RECOVERY_ROUTE_OWN_REQUEST_HEADERS,
    );
    expect(forwarded).toEqual({ authorization: 'Bearer t', 'anthropic-version': '2024-10-22', 'x-stainless-os': 'Linux', 'x-multi': 'a, b' });
  });

  it('response: request ids and rate limits pass; framing and hop-by-hop headers are the gateway’s', () => {
    const relayed = selectRelayedResponseHeaders({
      'x-request-id': 'r1',
      'x-ratelimit-limit-requests': '100',
      'content-length': '99',
      'content-encoding': 'gzip',
      'content-type': 'text/event-stream',
      'transfer-encoding': 'chunked',
      connection: 'keep-alive',
      'keep-alive': 'timeout=5',
      'set-cookie': ['a=1', 'b=2'],
    });
    expect(relayed).toEqual({ 'x-request-id': 'r1', 'x-ratelimit-limit-requests': '100', 'set-cookie': ['a=1', 'b=2'] });
  });
});
