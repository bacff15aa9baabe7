import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { urlToHttpOptions } from 'node:url';
import type { FetchFunction, FetchResponse } from '@turnguard/core';
import { decodeContentEncoding } from './decode-content-encoding.js';
import { createAbortError, NodeBodyStream } from './node-body-stream.js';
import { Http1ConnectionPool, type Http1Origin } from './http1-connection-pool.js';
import { sendHttp1Request } from './http1-exchange.js';
import { NodeHttpResponse, NULL_BODY_STATUSES } from './node-http-response.js';

/** A FetchFunction over the lean HTTP/1.1 client (`http:`) and `node:https`, plus the keep-alive pools it owns. */
export interface NodeHttpFetch {
  fetch: FetchFunction;
  /** Closes the pooled upstream sockets (gateway close). */
  destroy(): void;
}


/** runTurn passes a plain record; copying it skips building a WHATWG Headers per request. */
function readRequestHeaders(init: RequestInit['headers']): Record<string, string> {
  const headers: Record<string, string> = {};
  if (init === undefined) return headers;
  // A plain record (what runTurn passes) is copied as is; only anything else goes through
  // `Headers` (reading that global loads undici: ≈ 20 ms, measured, on the gateway's first request).
  const prototype: unknown = Array.isArray(init) ? Array.prototype : Object.getPrototypeOf(init);
  if (prototype !== Object.prototype && prototype !== null) {
    new Headers(init).forEach((value, name) => {
      headers[name] = value;
    });
    return headers;
  }
  for (const [name, value] of Object.entries(init)) headers[name.toLowerCase()] = value;
  return headers;
}

/** A parsed upstream URL as node:https request options, and as the lean HTTP/1.1 client's origin. */
interface RequestTarget {
  secure: boolean;
  protocol: string;
  hostname: string | undefined;
  port: number | undefined;
  path: string;
  auth: string | undefined;
  origin: Http1Origin;
  /** The Host header: `url.host` (brackets for IPv6, the port unless it is the default). */
  hostHeader: string;
}

/**
 * The fields node:http reads of a URL, as a small plain object: `urlToHttpOptions`
 * returns a null-prototype object with every URL field (href, search, hash…),
 * which ClientRequest and the agent each copy again on every request.
 */
function toRequestTarget(url: URL): RequestTarget {
  const options = urlToHttpOptions(url);
  const secure = url.protocol === 'https:';
  const hostname = options.hostname ?? undefined;
  const port = typeof options.port === 'number' ? options.port : undefined;
  const originHost = hostname ?? 'localhost';
  const originPort = port ?? (secure ? 443 : 80);
  return {
    secure,
    protocol: url.protocol,
    hostname,
    port,
    path: options.path ?? '/',
    auth: options.auth ?? undefined,
    origin: { host: originHost, port: originPort, key: `${originHost}:${originPort}` },
    hostHeader: url.host,
  };
}

const MAX_CACHED_TARGETS = 64;

/**
 * An upstream transport for runTurn with keep-alive pools — `http:` over the
 * lean HTTP/1.1 client (http1-exchange.ts, decision 0213), `https:` over
 * `node:https` — cheaper per request than undici's `fetch`
 * (bench/README.md, gateway section) — that keeps fetch's observable
 * contract where runTurn depends on it:
 * - a connection that fails before the response rejects like undici with
 *   `TypeError: fetch failed` caused by the node:net error (`ECONNREFUSED`,
 *   `ECONNRESET` "socket hang up", DNS, TLS): retryable transport errors for
 *   classifyThrownError (R1.1);
 * - a body cut mid-stream errors the body stream with `TypeError: terminated`;
 * - an abort rejects (or errors the body) with the signal's reason at once
 *   and destroys the socket (R1.6, R8.4);
 * - the body is core's `ByteStream` (a default reader's behaviour, without a
 *   WHATWG ReadableStream: decision 0205), delivered as it arrives (R8.2).
 */
export function createNodeHttpFetch(): NodeHttpFetch {
  // Plain-http upstreams (local model servers, the mock, an internal proxy) go over the lean HTTP/1.1
  // client: its request leaves in one write at call time (decision 0213).
  const http1Pool = new Http1ConnectionPool();
  // Long thinking streams are silent for minutes; runTurn's own deadlines (R4.2) bound them, not a socket timeout.
  // `noDelay` on the pool's sockets once, instead of a `setNoDelay` (and its 'socket' listener) per request.
  const httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: Infinity, scheduling: 'lifo', noDelay: true });

  // runTurn posts to a handful of endpoint URLs: each is parsed once, not per request.
  const targets = new Map<string, RequestTarget>();
  const resolveTarget = (input: string): RequestTarget => {
    let target = targets.get(input);
    if (target === undefined) {
      const url = new URL(input);
      target = toRequestTarget(url);
      if (targets.size >= MAX_CACHED_TARGETS) targets.clear();
      targets.set(input, target);
    }
    return target;
  };

  const fetch: FetchFunction = (input, init) =>
    new Promise<FetchResponse>((resolve, reject) => {
      const signal = init.signal ?? new AbortController().signal;
      if (signal.aborted) {
        reject(createAbortError(signal));
        return;
      }
      let target: RequestTarget;
      try {
        target = resolveTarget(input);
      } catch (error) {
        reject(new TypeError('Invalid URL', { cause: error }));
        return;
      }
      const { secure } = target;
      if (!secure && target.protocol !== 'http:') {
        reject(new TypeError(`Unsupported protocol ${target.protocol}`));
        return;
      }
      const headers = readRequestHeaders(init.headers);
      // runTurn sends the adapter's JSON text; other body types are not needed here.
      if (init.body != null && typeof init.body !== 'string') {
        reject(new TypeError('createNodeHttpFetch sends string bodies only.'));
        return;
      }
      const body = init.body ?? undefined;
      if (!secure) {
        if (target.auth !== undefined && headers.authorization === undefined) {
          headers.authorization = `Basic ${Buffer.from(target.auth).toString('base64')}`;
        }
        const { origin, hostHeader, path } = target;
        resolve(sendHttp1Request(http1Pool, { origin, hostHeader, path, method: init.method ?? 'GET', headers, body, signal }));
        return;
      }
      if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));

      let responded = false;
      // One abort listener for the whole exchange (request, then body), not one per phase.
      let listening = true;
      let registered = false;
      let abortBody: (() => void) | undefined;
      const stopListening = (): void => {
        if (!listening) return;
        listening = false;
        if (registered) signal.removeEventListener('abort', onAbort);
      };
      const onAbort = (): void => {
        listening = false;
        if (!responded) reject(createAbortError(signal));
        abortBody?.();
        request.destroy();
      };
      const request = httpsRequest(
        {
          protocol: target.protocol,
          hostname: target.hostname,
          port: target.port,
          path: target.path,
          auth: target.auth,
          method: init.method ?? 'GET',
          headers,
          agent: httpsAgent,
        },
        (response) => {
          responded = true;
          const status = response.statusCode ?? 0;
          if (status < 200 || status > 599) {
            stopListening();
            response.destroy();
            reject(new TypeError(`The upstream answered with an invalid status ${status}.`));
            return;
          }
          const nullBody = NULL_BODY_STATUSES.has(status) || init.method === 'HEAD';
          if (nullBody) {
            stopListening();
            response.resume();
            resolve(new NodeHttpResponse(status, response.headers, null));
            return;
          }
          const body = new NodeBodyStream(response, decodeContentEncoding(response.headers['content-encoding'], response), signal, stopListening);
          abortBody = () => body.abort();
          resolve(new NodeHttpResponse(status, response.headers, body));
        },
      );
      // The listener is added on the next tick, after the agent's own tick has written the request
      // (node:http hands a pooled socket over on process.nextTick): until V8 has optimised Node's
      // event_target code, adding it would delay the upstream request (decision 0212).
      // An abort in between is seen there, before any I/O: the request still ends at once (R1.6).
      process.nextTick(() => {
        if (!listening) return;
        if (signal.aborted) onAbort();
        else {
          registered = true;
          signal.addEventListener('abort', onAbort, { once: true });
        }
      });
      // `on`, not `once`: a second socket error must never become an uncaught exception.
      request.on('error', (error) => {
        if (!responded) stopListening();
        // undici's shape for any failure before a response (DNS, refused, reset, TLS):
        // `TypeError: fetch failed` with the node:net error as cause, which
        // classifyThrownError reads as a retryable transport error (R1.1), as with fetch.
        if (!responded) reject(signal.aborted ? createAbortError(signal) : new TypeError('fetch failed', { cause: error }));
      });
      request.end(body);
    });

  return {
    fetch,
    destroy() {
      http1Pool.destroy();
      httpsAgent.destroy();
    },
  };
}
