import { readHeader, type HeadersLike } from './read-header.js';

const DELTA_SECONDS = /^\d+(?:\.\d+)?$/;

/**
 * The server-directed wait of a response, in ms (R1.3), or `undefined` when
 * it gave none or gave garbage.
 *
 * Order as in openai-node `retryRequest` (src/client.ts): the non-standard
 * `retry-after-ms` first, then `retry-after` as delta-seconds or an HTTP-date.
 * Unlike the SDK, a date in the past is a wait of 0 (not negative) and a
 * value that parses as neither is ignored instead of becoming NaN.
 */
export function parseRetryAfterMs(headers: HeadersLike | undefined, nowMs: number = Date.now()): number | undefined {
  const milliseconds = readHeader(headers, 'retry-after-ms')?.trim();
  if (milliseconds !== undefined && DELTA_SECONDS.test(milliseconds)) {
    return Number(milliseconds);
  }
  const retryAfter = readHeader(headers, 'retry-after')?.trim();
  if (retryAfter === undefined || retryAfter === '') return undefined;
  if (DELTA_SECONDS.test(retryAfter)) return Number(retryAfter) * 1000;
  // RFC 9110 §10.2.3: otherwise an HTTP-date. Date.parse also accepts other
  // shapes; a wall-clock instant is what both mean, so that is harmless.
  const date = Date.parse(retryAfter);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}
