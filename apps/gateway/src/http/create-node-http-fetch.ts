import type { FetchFunction } from '@turnguard/core';
import type { Dispatcher } from 'undici';
import { createUpstreamDispatcher, type GatewayEnv } from './create-node-http-fetch-dispatcher.js';
import { addUrlCredentials, readRequestHeaders } from './create-node-http-fetch-headers.js';
import { createAbortError } from './node-body-stream.js';
import { dispatchRequest } from './create-node-http-fetch-handler.js';
import { handOverOnce } from './hand-over-once.js';

/** A FetchFunction over undici's dispatcher API, plus the keep-alive pools it owns. */
export interface NodeHttpFetch {
  fetch: FetchFunction;
  /** The same pools (and proxy settings) for the gateway's pass-through routes (R8.8). */
  readonly dispatcher: Dispatcher;
  /** Closes the pooled upstream sockets (gateway close). */
  destroy(): void;
}

export interface NodeHttpFetchOptions {
  /** Where HTTP_PROXY / HTTPS_PROXY / NO_PROXY are read (the gateway's env). Default: `process.env`. */
  env?: GatewayEnv;
  /** Certificates trusted for https upstreams instead of Node's bundle (an internal CA; tests). NODE_EXTRA_CA_CERTS works as usual. */
  ca?: string | Buffer;
  /** R11.4: the connect limit (undici's own default: 10 s); its time-out is reported as `UPSTREAM_CONNECT_TIMEOUT`. */
  connectTimeoutMs?: number;
}

/** A parsed upstream URL, as undici's `request()` takes it. */
interface RequestTarget {
  url: URL;
  origin: string;
  path: string;
}

const MAX_CACHED_TARGETS = 64;

/**
 * An upstream transport for runTurn on undici's dispatcher API (decision
 * 0220): `dispatch()` on a dedicated keep-alive Agent (or EnvHttpProxyAgent),
 * no WHATWG Response or Headers per request, and fetch's observable contract
 * where runTurn depends on it:
 * - a failure before the response rejects with `TypeError: fetch failed`
 *   caused by the socket or parser error: a retryable transport error (R1.1);
 * - a body cut mid-stream errors the body with `TypeError: terminated`
 *   after every byte received (R4.1);
 * - an abort rejects (or errors the body) with the signal's reason and
 *   closes the connection (R1.6, R8.4);
 * - the body is core's `ByteStream` (decision 0320), delivered as it arrives
 *   (R8.2), content-decoded like fetch's (gzip, deflate raw or zlib, br, stacked).
 * Every request header given is sent except hop-by-hop ones, host and
 * content-length (set from the body, handed to undici once: hand-over-once.ts);
 * every response header is readable, repeats included.
 */
export function createNodeHttpFetch(options: NodeHttpFetchOptions = {}): NodeHttpFetch {
  const dispatcher = createUpstreamDispatcher(options.env ?? process.env, options.ca, options.connectTimeoutMs);

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
    // runTurn sends the adapter's JSON text, or the client's own bytes (R8.2); other body types are not needed here.
    if (init.body != null && typeof init.body !== 'string' && !(init.body instanceof Uint8Array)) throw new TypeError('createNodeHttpFetch sends string or byte bodies only.');
    const headers = readRequestHeaders(init.headers);
    addUrlCredentials(headers, target.url);
    const method = (init.method ?? 'GET').toUpperCase();

    // undici's Dispatcher.md documents Iterable bodies for dispatch(); its .d.ts leaves them out.
    const body = handOverOnce(init.body as string | Uint8Array | null | undefined, headers) as Dispatcher.DispatchOptions['body'];
    return dispatchRequest(dispatcher, { origin: target.origin, path: target.path, method, headers, body }, signal);
  };

  return {
    fetch,
    dispatcher,
    destroy() {
      // In-flight bodies fail as cut (`terminated`); nothing waits on this promise.
      dispatcher.destroy().catch(() => undefined);
    },
  };
}
