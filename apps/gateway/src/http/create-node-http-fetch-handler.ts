import { EventEmitter } from 'node:events';
import type { Dispatcher } from 'undici';
import type { FetchResponse } from '@turnguard/core';
import { decodeContentEncoding } from './decode-content-encoding.js';
import { createAbortError, NodeBodyStream, type BodyMessage, type BodySource } from './node-body-stream.js';
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

/** A response body as NodeBodyStream reads it, fed by the handler; pausing is undici's (onData returns false, then `resume`). */
class UndiciBody extends EventEmitter implements BodyMessage, BodySource {
  readableEnded = false;
  #paused = false;
  #done = false;

  constructor(
    private readonly resumeSocket: () => void,
    private readonly abortRequest: (reason: Error) => void,
  ) {
    super();
  }

  /** false: undici pauses the socket until `resume()`. */
  push(chunk: Buffer): boolean {
    this.emit('data', chunk);
    return !this.#paused;
  }

  end(): void {
    this.#done = true;
    this.readableEnded = true;
    this.emit('end');
    this.emit('close');
  }

  fail(error: Error): void {
    if (this.#done) return;
    this.#done = true;
    this.emit('error', error);
    this.emit('close');
  }

  pause(): this {
    this.#paused = true;
    return this;
  }

  resume(): this {
    if (!this.#paused) return this;
    this.#paused = false;
    if (!this.#done) this.resumeSocket();
    return this;
  }

  /** The reader cancelled, or the body failed: undici drops the connection, never reuses it. */
  destroy(): this {
    if (!this.#done) this.abortRequest(new Error('The response body was cancelled.'));
    return this;
  }
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
    let body: UndiciBody | undefined;
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
        body = new UndiciBody(resume, (reason) => abort?.(reason));
        const decoded = decodeContentEncoding(headers['content-encoding'], body);
        resolve(new NodeHttpResponse(status, headers, new NodeBodyStream(body, decoded, signal)));
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
