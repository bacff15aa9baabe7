import type { ByteStream, FetchFunction, FetchResponse } from '@turnguard/core';
import type { BodyReadTap } from '../http/node-body-stream.js';
import { NodeHttpResponse, readBodyText } from '../http/node-http-response.js';

/** What the raw relay learns about the upstream bodies runTurn reads. */
export interface UpstreamByteTap extends BodyReadTap {
  /** A successful response's body starts (segment 1, a retried attempt, or the recovery segment). */
  onBodyStart(): void;
  /**
   * The decoder asks for more bytes. Decoders read on demand (core's
   * decodeSseStream reads only when its batch is empty) and runTurn hands
   * each event over only once the host pulled again, so at this point every
   * event decoded from the bytes so far has been consumed by the relay.
   */
  onDrained(): void;
}

/**
 * A FetchFunction whose successful response bodies report to `tap` what the
 * decoder reads, and when it asks for more (issue 7: relay the upstream's own
 * bytes while decoding a copy). Error responses are passed through untouched:
 * their bodies go to classifyError, never to the client.
 */
export function tapUpstreamBytes(fetch: FetchFunction, tap: UpstreamByteTap): FetchFunction {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (!response.ok || response.body === null) return response;
    tap.onBodyStart();
    // The gateway's own transport reports reads from its body itself: no wrapping stream per
    // response on the first-byte path (decision 0204).
    if (response instanceof NodeHttpResponse && response.tapBody(tap)) return response;
    return withTappedBody(response, response.body, tap);
  };
}

function withTappedBody(response: FetchResponse, source: ByteStream, tap: UpstreamByteTap): FetchResponse {
  const reader = source.getReader();
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        tap.onDrained();
        // A failed read rejects pull, which errors this stream with the same reason (cut, abort).
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          return;
        }
        tap.onBytes(value);
        controller.enqueue(value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    // Pulled only while the decoder waits: `onDrained` means "asked for more", never read-ahead.
    { highWaterMark: 0 },
  );
  return { ok: response.ok, status: response.status, headers: response.headers, body, text: () => readBodyText(body) };
}
