import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** Where a client presents the gateway token besides its own provider key (decision 0240). */
export const GATEWAY_TOKEN_HEADER = 'x-turnguard-token';

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function firstValue(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return text?.trim();
}

function bearerValue(authorization: string | undefined): string | undefined {
  const match = authorization === undefined ? null : /^Bearer\s+(\S+)$/i.exec(authorization);
  return match?.[1];
}

/** Removes a header from both views of the request, so no forwarder (parsed or raw) can send it on. */
function removeHeader(request: IncomingMessage, name: string): void {
  delete request.headers[name];
  for (let index = request.rawHeaders.length - 2; index >= 0; index -= 2) {
    if (request.rawHeaders[index]!.toLowerCase() === name) request.rawHeaders.splice(index, 2);
  }
}

/**
 * Checks the gateway token (R8.9) in constant time (hashes of equal length,
 * `timingSafeEqual`). It may come in `x-turnguard-token` (the client keeps
 * its own provider key in `authorization`/`x-api-key`), or AS the client's
 * key (`Authorization: Bearer <token>` or `x-api-key: <token>`): then that
 * header is removed so the gateway's environment key is used instead.
 * `x-turnguard-token` is always removed: the token never goes upstream.
 */
export function createTokenCheck(token: string): (request: IncomingMessage) => boolean {
  const expected = digest(token);
  const matches = (candidate: string | undefined): boolean => candidate !== undefined && timingSafeEqual(digest(candidate), expected);
  return (request) => {
    const { headers } = request;
    const dedicated = firstValue(headers[GATEWAY_TOKEN_HEADER]);
    removeHeader(request, GATEWAY_TOKEN_HEADER);
    if (matches(dedicated)) return true;
    if (matches(bearerValue(firstValue(headers.authorization)))) {
      removeHeader(request, 'authorization');
      return true;
    }
    if (matches(firstValue(headers['x-api-key']))) {
      removeHeader(request, 'x-api-key');
      return true;
    }
    return false;
  };
}
