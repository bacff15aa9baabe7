import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Where the gateway echoes a request's id (R12.3). Not `x-request-id`: that
 * name is the upstream's own request id on OpenAI's answers (and `request-id`
 * on Anthropic's), which reaches the client unchanged (R8.6) and which the
 * SDKs read as the provider's id (decision 0381).
 */
export const REQUEST_ID_HEADER = 'x-turnguard-request-id';
/** The id a client (or a load balancer in front of the gateway) sent; forwarded upstream unchanged (R8.6). */
const CLIENT_REQUEST_ID_HEADER = 'x-request-id';
/** An id, not text: anything else a client puts in the header is replaced, never logged (R4.10). */
const REQUEST_ID_PATTERN = /^[\w.:@+/=-]{1,128}$/;

/**
 * The id every log line of this request carries: the client's `x-request-id`
 * when it looks like an id, else a new UUID. Set on the response at once, so
 * every answer carries it, refusals included. A made-up id stays between the
 * gateway and its client: the upstream request is the client's, unchanged.
 */
export function assignRequestId(request: IncomingMessage, response: ServerResponse): string {
  const given = request.headers[CLIENT_REQUEST_ID_HEADER];
  const id = typeof given === 'string' && REQUEST_ID_PATTERN.test(given) ? given : randomUUID();
  response.setHeader(REQUEST_ID_HEADER, id);
  return id;
}

/** The id `assignRequestId` gave this response. */
export function requestIdOf(response: ServerResponse): string | undefined {
  const value = response.getHeader(REQUEST_ID_HEADER);
  return typeof value === 'string' ? value : undefined;
}

/** An upstream's host for the log: no user info, path or query, where a key could hide (R8.5). */
export function upstreamHostOf(baseUrl: string): string | undefined {
  try {
    return new URL(baseUrl).host;
  } catch {
    return undefined;
  }
}
