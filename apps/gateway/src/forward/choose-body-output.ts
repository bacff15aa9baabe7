import type { Protocol, ResponseBodyInfo } from '@turnguard/core';

/**
 * How the client gets one upstream response body: `raw`, its own records as
 * they came, judged one by one (R8.6, R8.13); or `encode`, the adapter's
 * encoder speaking for it, continuing what the client already has (R8.7).
 *
 * The one place that decides. A segment-1 body of the client's own protocol
 * family is relayed as it is (a same-family fallback's too, R11.1); the
 * recovery segment (R4) and a continuation (R11.6) are spliced in by the
 * encoder (their tool calls never reach the client, their blocks follow what
 * the client has); a body of another family is never relayed raw — its
 * neutral events are encoded in the client's protocol (R11.1, R7.3).
 */
export function chooseBodyOutput(body: ResponseBodyInfo, clientProtocol: Protocol): 'raw' | 'encode' {
  const kind = body.kind ?? (body.segmentIndex === 0 ? 'attempt' : 'recovery');
  const family = body.protocol ?? clientProtocol;
  return kind === 'attempt' && family === clientProtocol ? 'raw' : 'encode';
}
