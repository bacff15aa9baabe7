import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import type { FetchResponse } from '@turnguard/core';
import { decodeContentEncoding } from './decode-content-encoding.js';
import type { Http1ConnectionPool, Http1Origin } from './http1-connection-pool.js';
import { Http1ResponseParser } from './http1-response-parser.js';
import { createAbortError, NodeBodyStream, type BodyMessage, type BodySource } from './node-body-stream.js';
import { NodeHttpResponse, NULL_BODY_STATUSES } from './node-http-response.js';

export interface Http1Request {
  origin: Http1Origin;
  /** The Host header's value (`url.host`: brackets for IPv6, the port unless default). */
  hostHeader: string;
  path: string;
  method: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string | undefined;
  signal: AbortSignal;
}

/** Set by the client itself: a caller's value is dropped, as fetch forbids these request headers. */
const CONNECTION_HEADERS: ReadonlySet<string> = new Set(['host', 'content-length', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'te', 'trailer']);
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** node:http's own check (`checkInvalidHeaderChar`): no CR, LF, NUL or other control characters. */
const INVALID_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
const PATH = /^\/[\x21-\x7e]*$/;

/** The request head; throws a TypeError (before anything is sent) for a field node:http would refuse. */
function serializeHead(request: Http1Request, method: string): string {
  if (!TOKEN.test(method)) throw new TypeError(`Invalid method ${JSON.stringify(method)}.`);
  if (!PATH.test(request.path)) throw new TypeError('The request path contains invalid characters.');
  let head = `${method} ${request.path} HTTP/1.1\r\nhost: ${request.hostHeader}\r\nconnection: keep-alive\r\n`;
  for (const name in request.headers) {
    if (CONNECTION_HEADERS.has(name)) continue;
    const value = request.headers[name]!;
    if (!TOKEN.test(name)) throw new TypeError(`Invalid header name ${JSON.stringify(name)}.`);
    if (INVALID_VALUE.test(value)) throw new TypeError(`Invalid character in header "${name}".`);
    head += `${name}: ${value}\r\n`;
  }
  if (request.body !== undefined) head += `content-length: ${Buffer.byteLength(request.body)}\r\n`;
  return `${head}\r\n`;
}

/** node:http's error for a connection closed before the response (classified as a retryable reset). */
function createHangUpError(): Error {
  return Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
}

/** A response body as NodeBodyStream reads it: what the parser decoded, until the message or the connection ends. */
class Http1Body extends EventEmitter implements BodyMessage, BodySource {
  complete = false;
  /** Cleared when the exchange ends: the connection may serve another request by then (a late resume must not touch it). */
  #socket: Socket | undefined;

  constructor(
    socket: Socket,
    private readonly abandon: () => void,
  ) {
    super();
    this.#socket = socket;
  }

  pause(): this {
    this.#socket?.pause();
    return this;
  }

  resume(): this {
    this.#socket?.resume();
    return this;
  }

  /** The exchange is over: the body no longer controls the connection. */
  release(): void {
    this.#socket = undefined;
  }

  /** The reader cancelled, or the body failed: the connection is closed, never reused. */
  destroy(): this {
    this.abandon();
    return this;
  }
}

/**
 * One request/response on a pooled connection (decision 0213): the head and
 * body go out in one write at call time — no ClientRequest, no tick before
 * the bytes leave — and the response is parsed by Http1ResponseParser. The
 * observable contract is createNodeHttpFetch's (fetch's): failures before
 * the response reject with `TypeError: fetch failed` caused by the socket
 * error; a cut body errors with `terminated` after the bytes received; an
 * abort rejects (or errors the body) with the signal's reason and closes the
 * connection, which is reused only after a complete, reusable message.
 */
export function sendHttp1Request(pool: Http1ConnectionPool, request: Http1Request): Promise<FetchResponse> {
  return new Promise<FetchResponse>((resolve, reject) => {
    const method = request.method.toUpperCase();
    const head = serializeHead(request, method);
    const headRequest = method === 'HEAD';
    const { signal } = request;
    const socket = pool.acquire(request.origin);
    let responded = false;
    let finished = false;
    let keepAliveHint: string | undefined;
    let body: Http1Body | undefined;

    /** Ends the exchange; the connection goes back to the pool only after a complete, reusable message. */
    const finish = (reusable: boolean): void => {
      if (finished) return;
      finished = true;
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('close', onClose);
      socket.off('error', fail);
      signal.removeEventListener('abort', onAbort);
      body?.release();
      pool.release(socket, request.origin, reusable ? keepAliveIdleMs(keepAliveHint) : 0);
    };
    /**
     * The exchange failed (`error`), or the connection closed early (no error): before the response
     * the fetch rejects; after it the body errors — a close with undici's "other side closed" cause.
     */
    function fail(error?: unknown): void {
      if (finished) return;
      finish(false);
      if (!responded) {
        reject(signal.aborted ? createAbortError(signal) : new TypeError('fetch failed', { cause: error ?? createHangUpError() }));
        return;
      }
      if (error !== undefined) body?.emit('error', error);
      body?.emit('close');
    }

    const parser = new Http1ResponseParser(
      {
        onHead: ({ status, headers }) => {
          keepAliveHint = headers['keep-alive'];
          // The parser has skipped interim 1xx heads: only a status past 599 is left to refuse.
          if (status > 599) {
            finish(false);
            reject(new TypeError(`The upstream answered with an invalid status ${status}.`));
            return;
          }
          responded = true;
          if (NULL_BODY_STATUSES.has(status) || headRequest) {
            resolve(new NodeHttpResponse(status, headers, null));
            return;
          }
          body = new Http1Body(socket, () => fail());
          const source = decodeContentEncoding(headers['content-encoding'], body);
          resolve(new NodeHttpResponse(status, headers, new NodeBodyStream(body, source, signal, () => undefined)));
        },
        onBody: (bytes) => body?.emit('data', bytes),
        onComplete: (reusable) => {
          finish(reusable && !signal.aborted);
          if (body === undefined) return;
          body.complete = true;
          body.emit('end');
          body.emit('close');
        },
      },
      headRequest,
    );

    function onData(chunk: Buffer): void {
      try {
        parser.push(chunk);
      } catch (error) {
        fail(error);
      }
    }
    /** The upstream's FIN: the end of a close-delimited body, else a cut. */
    function onEnd(): void {
      try {
        parser.end();
      } catch {
        fail();
      }
    }
    /** A close with no FIN first (a reset, or our own destroy): never a clean end. */
    function onClose(): void {
      fail();
    }
    /** With the signal aborted, `fail` rejects with its reason, or errors the body (and a decompressor) with it at once. */
    function onAbort(): void {
      fail(createAbortError(signal));
    }

    socket.on('data', onData);
    socket.on('end', onEnd);
    socket.on('close', onClose);
    socket.on('error', fail);
    // One write (writev) for head and body: the request leaves now, before any listener setup below.
    socket.cork();
    socket.write(head, 'latin1');
    if (request.body !== undefined && request.body !== '') socket.write(request.body, 'utf8');
    socket.uncork();
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Node's Agent and undici alike: the server's `keep-alive: timeout=N` less a second; 4 s when it gives none. */
const DEFAULT_IDLE_MS = 4_000;
const MAX_IDLE_MS = 600_000;

function keepAliveIdleMs(hint: string | undefined): number {
  const seconds = hint === undefined ? undefined : /(?:^|[\s,])timeout=(\d+)/i.exec(hint)?.[1];
  if (seconds === undefined) return DEFAULT_IDLE_MS;
  return Math.min(MAX_IDLE_MS, Number(seconds) * 1000 - 1000);
}
