import type { Dispatcher } from 'undici';
import type { FetchResponse } from '@turnguard/core';
import { createAbortError } from './node-body-stream.js';
import { createUndiciBody, type BodyFeed } from './undici-body.js';
import { NodeHttpResponse, NULL_BODY_STATUSES, type UpstreamResponseHeaders } from './node-http-response.js';

/**
 * undici throws these before anything is sent when a request is malformed
 * (a header value with CR/LF, a bad method): the caller's fault, never a
 * retryable connection failure.
 */
const INVALID_REQUEST_CODES: ReadonlySet<string> = new Set(['UND_ERR_INVALID_ARG', 'UND_ERR_NOT_SUPPORTED']);

/**
 * The shape undici's fetch gives any failure before a response (DNS, refused,
 * reset, TLS, a malformed status line such as `HTTP/1.1 099` or `1000`):
 * `TypeError: fetch failed` with the cause kept, which classifyThrownError
 * reads as a retryable transport error (R1.1), so it is retried before any
 * output. An abort rejects with the signal's reason (R1.6).
 */
export function toFetchError(error: unknown, signal: AbortSignal): unknown {
  if (signal.aborted) return createAbortError(signal);
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && INVALID_REQUEST_CODES.has(code)) {
    return new TypeError(`The upstream request is invalid: ${(error as Error).message}`, { cause: error });
  }
  return new TypeError('fetch failed', { cause: error });
}

/** undici's raw header list (name, value, name, value… as Buffers) as lower-case names, a repeated field as an array. */
function parseRawHeaders(raw: Buffer[]): UpstreamResponseHeaders {
  const headers: UpstreamResponseHeaders = {};
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = raw[index]!.toString('latin1').toLowerCase();
    const value = raw[index + 1]!.toString('latin1');
    const existing = headers[name];
    if (existing === undefined) headers[name] = value;
    else if (typeof existing === 'string') headers[name] = [existing, value];
    else existing.push(value);
  }
  return headers;
}

/**
 * One request on undici's dispatcher through its handler interface (decision
 * 0220): no RequestHandler, AsyncResource or node `Readable` per request —
 * the body goes straight into NodeBodyStream. The promise settles at the
 * response head (or failure); the signal aborts the request until the body ends.
 */
export function dispatchRequest(dispatcher: Dispatcher, options: Dispatcher.DispatchOptions, signal: AbortSignal): Promise<FetchResponse> {
  return new Promise<FetchResponse>((resolve, reject) => {
    let abort: ((reason: Error) => void) | undefined;
    let body: BodyFeed | undefined;
    let responded = false;
    const onAbort = (): void => abort?.(createAbortError(signal) as Error);
    const stopListening = (): void => signal.removeEventListener('abort', onAbort);
    const handler: Dispatcher.DispatchHandler = {
      onConnect(abortRequest) {
        abort = abortRequest;
        if (signal.aborted) onAbort();
      },
      onHeaders(status, rawHeaders, resume) {
        if (status < 200) return true; // an interim 1xx head: the final one follows
        responded = true;
        const headers = parseRawHeaders(rawHeaders as Buffer[]);
        if (status > 599) {
          reject(new TypeError(`The upstream answered with an invalid status ${status}.`));
          abort?.(new Error('invalid status'));
          return false;
        }
        if (NULL_BODY_STATUSES.has(status) || options.method === 'HEAD') {
          resolve(new NodeHttpResponse(status, headers, null));
          return true;
        }
        const created = createUndiciBody(headers['content-encoding'], resume, (reason) => abort?.(reason), signal);
        body = created.feed;
        resolve(new NodeHttpResponse(status, headers, created.stream));
        return true;
      },
      onData(chunk) {
        return body === undefined ? true : body.push(chunk);
      },
      onComplete() {
        stopListening();
        body?.end();
      },
      onError(error) {
        stopListening();
        if (!responded) reject(toFetchError(error, signal));
        else body?.fail(error);
      },
    };
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      dispatcher.dispatch(options, handler);
    } catch (error) {
      stopListening();
      reject(toFetchError(error, signal));
    }
  });
}
