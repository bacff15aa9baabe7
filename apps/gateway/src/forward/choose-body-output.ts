import type { ResponseBodyInfo } from '@turnguard/core';

/**
 * How the client gets one upstream response body: `raw`, its own records as
 * they came, judged one by one (R8.6, R8.13); or `encode`, the adapter's
 * encoder speaking for it, continuing what the client already has (R8.7).
 *
 * The one place that decides. Segment 1 speaks the client's protocol, so its
 * records are relayed as they are; the recovery segment (R4) is spliced in
 * by the encoder: its tool calls never reach the client (R4.5) and its
 * blocks or items must follow segment 1's indices. A body on another
 * protocol family, or a continuation spliced like a recovery, belongs here too.
 */
export function chooseBodyOutput(body: ResponseBodyInfo): 'raw' | 'encode' {
  return body.segmentIndex === 0 ? 'raw' : 'encode';
}
