import type { Protocol } from '@turnguard/core';
import { parseFallbacksHeader } from './parse-fallbacks-header.js';
import type { KeySource } from './routing-schema.js';
import type { RoutingTable } from './routing-table.js';

/** One planned physical destination of a turn (R11.1). */
export interface RouteAttempt {
  /** The configured upstream's name (the simple form's are `chat`, `messages`, `responses`). */
  upstream: string;
  /** The upstream's protocol family; another family than the client's means the request is translated (R7.1, R7.3). */
  protocol: Protocol;
  baseUrl: string;
  keySource: KeySource;
  /** The model name sent upstream. */
  model: string;
  /** The name the client or the chain used for it (a config alias, or the same as `model`). */
  requestedAs: string;
  /** Where this entry came from. */
  source: 'request' | 'config' | 'header';
}

function routeOne(table: RoutingTable, clientProtocol: Protocol, name: string, source: RouteAttempt['source']): RouteAttempt {
  const mapped = table.models[name];
  // An unmapped model goes to the client protocol's own upstream, as the simple form always did.
  const upstreamName = mapped?.upstream ?? clientProtocol;
  const upstream = table.upstreams[upstreamName];
  if (upstream === undefined) throw new Error(`routing table has no upstream "${upstreamName}"`);
  return {
    upstream: upstreamName,
    protocol: upstream.protocol,
    baseUrl: upstream.baseUrl,
    keySource: upstream.keySource,
    model: mapped?.model ?? name,
    requestedAs: name,
    source,
  };
}

/**
 * The ordered chain of attempts for one request (R11.1): the requested
 * model, then the header's chain when the client sent one (it replaces the
 * config's; `[]` turns fallbacks off), else the model's own chain, else `*`.
 * A destination already in the chain (same upstream and model) is not tried
 * twice. Pure; a bad header throws `GATEWAY_INVALID_FALLBACKS_HEADER`.
 */
export function resolveRoute(
  table: RoutingTable,
  clientProtocol: Protocol,
  requestModel: string,
  headerValue: string | readonly string[] | undefined,
): RouteAttempt[] {
  const fromHeader = parseFallbacksHeader(headerValue);
  const chain = fromHeader ?? table.fallbacks[requestModel] ?? table.fallbacks['*'] ?? [];
  const source: RouteAttempt['source'] = fromHeader === undefined ? 'config' : 'header';
  const attempts = [routeOne(table, clientProtocol, requestModel, 'request')];
  for (const name of chain) {
    const next = routeOne(table, clientProtocol, name, source);
    if (!attempts.some((seen) => seen.upstream === next.upstream && seen.model === next.model)) attempts.push(next);
  }
  return attempts;
}
