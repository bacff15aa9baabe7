import type { IncomingMessage, ServerResponse } from 'node:http';

const PREFLIGHT_MAX_AGE_SECONDS = '600';

export type OriginVerdict = 'no-origin' | 'allowed' | 'refused';

/**
 * R8.9, CORS opt-in: a request carrying a browser `Origin` is only served for
 * a configured origin. Blocking at the gateway (not just leaving out the
 * CORS headers) matters: a "simple" `text/plain` POST needs no preflight, so
 * without this a page could spend the gateway's key even if it cannot read
 * the answer.
 */
export function judgeOrigin(request: IncomingMessage, allowedOrigins: ReadonlySet<string>): OriginVerdict {
  const origin = request.headers.origin;
  if (origin === undefined) return 'no-origin';
  return allowedOrigins.has(origin) ? 'allowed' : 'refused';
}

/** The headers that let a configured origin read the answer (and every response header, e.g. request ids). */
export function applyCorsHeaders(request: IncomingMessage, response: ServerResponse): void {
  response.setHeader('access-control-allow-origin', request.headers.origin ?? '');
  response.setHeader('access-control-expose-headers', '*');
  response.setHeader('vary', 'Origin');
}

export function isPreflight(request: IncomingMessage): boolean {
  return request.method === 'OPTIONS' && request.headers.origin !== undefined && request.headers['access-control-request-method'] !== undefined;
}

/** A preflight from a configured origin: 204 allowing the methods the gateway serves and the headers asked for. */
export function answerPreflight(request: IncomingMessage, response: ServerResponse): void {
  applyCorsHeaders(request, response);
  const asked = request.headers['access-control-request-headers'];
  response.writeHead(204, {
    'access-control-allow-methods': 'GET, POST, OPTIONS',
    ...(asked === undefined ? {} : { 'access-control-allow-headers': asked }),
    'access-control-max-age': PREFLIGHT_MAX_AGE_SECONDS,
    vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
  });
  response.end();
}
