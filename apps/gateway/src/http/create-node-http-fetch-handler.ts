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
  const exchange = new UndiciExchange(signal, options.method === 'HEAD');
  try {
    dispatcher.dispatch(options, exchange);
  } catch (error) {
    exchange.failBeforeSending(error);
  }
  return exchange.response;
}

/**
 * The handler of one dispatched request. It keeps nothing of the dispatch
 * options: undici holds the handler until the body ends, and the serialized
 * request body (the whole prompt) must not stay with every open stream.
 */
class UndiciExchange implements Dispatcher.DispatchHandler {
  readonly response: Promise<FetchResponse>;
  #resolve!: (response: FetchResponse) => void;
  #reject!: (error: unknown) => void;
  #abort: ((reason: Error) => void) | undefined;
  #body: BodyFeed | undefined;
  #responded = false;
  readonly #onAbort = (): void => this.#abort?.(createAbortError(this.signal) as Error);
  readonly #abortFromBody = (reason: Error): void => this.#abort?.(reason);

  constructor(
    private readonly signal: AbortSignal,
    private readonly isHead: boolean,
  ) {
    this.response = new Promise<FetchResponse>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  onConnect(abortRequest: (reason: Error) => void): void {
    this.#abort = abortRequest;
    if (this.signal.aborted) this.#onAbort();
  }

  onHeaders(status: number, rawHeaders: Buffer[] | string[] | null, resume: () => void): boolean {
    if (status < 200) return true; // an interim 1xx head: the final one follows
    this.#responded = true;
    const headers = parseRawHeaders(rawHeaders as Buffer[]);
    if (status > 599) {
      this.#reject(new TypeError(`The upstream answered with an invalid status ${status}.`));
      this.#abort?.(new Error('invalid status'));
      return false;
    }
    if (NULL_BODY_STATUSES.has(status) || this.isHead) {
      this.#resolve(new NodeHttpResponse(status, headers, null));
      return true;
    }
    const created = createUndiciBody(headers['content-encoding'], resume, this.#abortFromBody, this.signal);
    this.#body = created.feed;
    this.#resolve(new NodeHttpResponse(status, headers, created.stream));
    return true;
  }

  onData(chunk: Buffer): boolean {
    return this.#body === undefined ? true : this.#body.push(chunk);
  }

  onComplete(): void {
    this.#stopListening();
    this.#body?.end();
  }

  onError(error: Error): void {
    this.#stopListening();
    if (!this.#responded) this.#reject(toFetchError(error, this.signal));
    else this.#body?.fail(error);
  }

  /** `dispatch` threw: nothing was sent. */
  failBeforeSending(error: unknown): void {
    this.#stopListening();
    this.#reject(toFetchError(error, this.signal));
  }

  #stopListening(): void {
    this.signal.removeEventListener('abort', this.#onAbort);
  }
}
