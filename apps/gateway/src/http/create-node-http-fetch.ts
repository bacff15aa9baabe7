import type { Dispatcher } from 'undici';
import type { FetchFunction, FetchResponse } from '@turnguard/core';
import { decodeContentEncoding } from './decode-content-encoding.js';
import { createUpstreamDispatcher, type GatewayEnv } from './create-node-http-fetch-dispatcher.js';
import { addUrlCredentials, readRequestHeaders } from './create-node-http-fetch-headers.js';
import { createAbortError, NodeBodyStream } from './node-body-stream.js';
import { NodeHttpResponse, NULL_BODY_STATUSES } from './node-http-response.js';

/** A FetchFunction over undici's dispatcher API, plus the keep-alive pools it owns. */
export interface NodeHttpFetch {
  fetch: FetchFunction;
  /** Closes the pooled upstream sockets (gateway close). */
  destroy(): void;
}

export interface NodeHttpFetchOptions {
  /** Where HTTP_PROXY / HTTPS_PROXY / NO_PROXY are read (the gateway's env). Default: `process.env`. */
  env?: GatewayEnv;
  /** Certificates trusted for https upstreams instead of Node's bundle (an internal CA; tests). NODE_EXTRA_CA_CERTS works as usual. */
  ca?: string | Buffer;
}

/** A parsed upstream URL, as undici's `request()` takes it. */
interface RequestTarget {
  url: URL;
  origin: string;
  path: string;
}

const MAX_CACHED_TARGETS = 64;

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
function toFetchError(error: unknown, signal: AbortSignal): unknown {
  if (signal.aborted) return createAbortError(signal);
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && INVALID_REQUEST_CODES.has(code)) {
    return new TypeError(`The upstream request is invalid: ${(error as Error).message}`, { cause: error });
  }
  return new TypeError('fetch failed', { cause: error });
}

/**
 * An upstream transport for runTurn on undici's dispatcher API (decision
 * 0220): `request()` on a dedicated keep-alive Agent (or EnvHttpProxyAgent),
 * no WHATWG Response or Headers per request, and fetch's observable contract
 * where runTurn depends on it:
 * - a failure before the response rejects with `TypeError: fetch failed`
 *   caused by the socket or parser error: a retryable transport error (R1.1);
 * - a body cut mid-stream errors the body with `TypeError: terminated`
 *   after every byte received (R4.1);
 * - an abort rejects (or errors the body) with the signal's reason and
 *   closes the connection (R1.6, R8.4);
 * - the body is core's `ByteStream` (decision 0205), delivered as it arrives
 *   (R8.2), content-decoded like fetch's (gzip, deflate raw or zlib, br, stacked).
 * Every request header given is sent except hop-by-hop ones, host and
 * content-length; every response header is readable, repeats included.
 */
export function createNodeHttpFetch(options: NodeHttpFetchOptions = {}): NodeHttpFetch {
  const dispatcher = createUpstreamDispatcher(options.env ?? process.env, options.ca);

  // runTurn posts to a handful of endpoint URLs: each is parsed once, not per request.
  const targets = new Map<string, RequestTarget>();
  const resolveTarget = (input: string): RequestTarget => {
    let target = targets.get(input);
    if (target === undefined) {
      const url = new URL(input);
      target = { url, origin: url.origin, path: `${url.pathname}${url.search}` };
      if (targets.size >= MAX_CACHED_TARGETS) targets.clear();
      targets.set(input, target);
    }
    return target;
  };

  const fetch: FetchFunction = async (input, init) => {
    const signal = init.signal ?? new AbortController().signal;
    if (signal.aborted) throw createAbortError(signal);
    let target: RequestTarget;
    try {
      target = resolveTarget(input);
    } catch (error) {
      throw new TypeError('Invalid URL', { cause: error });
    }
    if (target.url.protocol !== 'http:' && target.url.protocol !== 'https:') throw new TypeError(`Unsupported protocol ${target.url.protocol}`);
    // runTurn sends the adapter's JSON text; other body types are not needed here.
    if (init.body != null && typeof init.body !== 'string') throw new TypeError('createNodeHttpFetch sends string bodies only.');
    const headers = readRequestHeaders(init.headers);
    addUrlCredentials(headers, target.url);
    const method = (init.method ?? 'GET').toUpperCase();

    let response: Dispatcher.ResponseData;
    try {
      response = await dispatcher.request({ origin: target.origin, path: target.path, method, headers, body: init.body ?? undefined, signal });
    } catch (error) {
      throw toFetchError(error, signal);
    }
    return toFetchResponse(response, method, signal);
  };

  return {
    fetch,
    destroy() {
      // In-flight bodies fail as cut (`terminated`); nothing waits on this promise.
      dispatcher.destroy().catch(() => undefined);
    },
  };
}

function toFetchResponse(response: Dispatcher.ResponseData, method: string, signal: AbortSignal): FetchResponse {
  const { statusCode: status, headers, body } = response;
  if (status < 200 || status > 599) {
    body.destroy();
    throw new TypeError(`The upstream answered with an invalid status ${status}.`);
  }
  if (NULL_BODY_STATUSES.has(status) || method === 'HEAD') {
    body.resume();
    return new NodeHttpResponse(status, headers, null);
  }
  const decoded = decodeContentEncoding(headers['content-encoding'], body);
  return new NodeHttpResponse(status, headers, new NodeBodyStream(body, decoded, signal));
}
