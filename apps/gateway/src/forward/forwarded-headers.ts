import type { IncomingHttpHeaders } from 'node:http';
import type { FetchResponseHeaders } from '@turnguard/core';
import { GATEWAY_OWN_REQUEST_HEADERS } from '../routing/parse-fallbacks-header.js';

/**
 * Hop-by-hop headers (RFC 9110 §7.6.1, and the ones nginx/Envoy also drop):
 * they describe one connection, never the request, so a proxy does not
 * forward them in either direction.
 */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/**
 * What the gateway itself decides on a recovery route (decision 0230): it
 * streams upstream whatever the client asked (so `accept` and the body
 * framing are its own), and it decodes the body, so it asks for none of the
 * client's encodings. `host` and `content-length` belong to the new request.
 */
export const RECOVERY_ROUTE_OWN_REQUEST_HEADERS: ReadonlySet<string> = new Set(['host', 'content-length', 'accept', 'accept-encoding', 'content-type', ...GATEWAY_OWN_REQUEST_HEADERS]);

/** Names a `connection` header lists are hop-by-hop for this message too (RFC 9110 §7.6.1). */
function listedInConnection(connection: string | string[] | undefined): Set<string> {
  const text = Array.isArray(connection) ? connection.join(',') : (connection ?? '');
  return new Set(text.split(',').map((name) => name.trim().toLowerCase()).filter((name) => name !== ''));
}

/**
 * The client's request headers as the upstream should get them (R8.6):
 * everything but hop-by-hop headers and `omit`. Repeated headers are joined
 * with `, ` (RFC 9110 §5.3).
 */
export function selectForwardedRequestHeaders(headers: IncomingHttpHeaders, omit: ReadonlySet<string>): Record<string, string> {
  const listed = listedInConnection(headers.connection);
  const forwarded: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || listed.has(name) || omit.has(name)) continue;
    forwarded[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return forwarded;
}

/**
 * What the gateway sets itself on a response it re-frames (SSE it writes,
 * JSON it renders): the length and encoding of its own body.
 */
const REFRAMED_OWN_RESPONSE_HEADERS = new Set(['content-length', 'content-encoding', 'content-type']);

/**
 * The upstream's response headers the client gets on a response the gateway
 * re-frames (R8.6): request ids, rate limits, `openai-processing-ms`, … —
 * all but hop-by-hop and the body's own framing.
 */
export function selectRelayedResponseHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const listed = listedInConnection(headers.connection);
  const relayed: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (value === undefined || HOP_BY_HOP.has(lower) || listed.has(lower) || REFRAMED_OWN_RESPONSE_HEADERS.has(lower)) continue;
    relayed[lower] = value;
  }
  return relayed;
}

/**
 * A response's headers as a plain record. WHATWG `Headers` and the gateway's
 * own transport both have `forEach`; a host-given fetch without it relays none.
 */
export function readResponseHeaderRecord(headers: FetchResponseHeaders): Record<string, string> {
  const record: Record<string, string> = {};
  const source = headers as { forEach?: (callback: (value: string, name: string) => void) => void };
  if (typeof source.forEach === 'function') source.forEach((value, name) => (record[name.toLowerCase()] = value));
  return record;
}
