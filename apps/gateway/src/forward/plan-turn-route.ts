import type { IncomingHttpHeaders } from 'node:http';
import type { FailoverTarget, PrefillDialect, Protocol, ProtocolAdapter, UpstreamTarget } from '@turnguard/core';
import { TurnError } from '@turnguard/core';
import { selectAdapter } from '../protocol-routes.js';
import { FALLBACKS_HEADER } from '../routing/parse-fallbacks-header.js';
import { resolveRoute, type RouteAttempt } from '../routing/resolve-route.js';
import type { RoutingTable } from '../routing/routing-table.js';
import { resolveUpstreamTarget, withClientQuery } from './resolve-upstream-target.js';

/** Where one request goes (R11.1): its first destination and the chain after it, as runTurn takes them. */
export interface TurnRoute {
  /** The client's body, with the first destination's model when the config maps it to another name. */
  body: Record<string, unknown>;
  target: UpstreamTarget;
  /** The first destination's adapter when it speaks another family than the client. */
  targetAdapter: ProtocolAdapter<object> | undefined;
  upstream: string;
  prefill: PrefillDialect | undefined;
  fallbacks: FailoverTarget[];
  /** Every planned destination, for the logs. */
  attempts: RouteAttempt[];
}

export interface RouteContext {
  table: RoutingTable;
  protocol: Protocol;
  body: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  /** The client's path and query: its query goes to a same-family upstream (Claude Code's `?beta=true`). */
  requestUrl: string | undefined;
  env: Record<string, string | undefined>;
  mock: boolean;
}

/**
 * A configured upstream's prefill dialect (R11.6, decision 0401): as
 * configured; unset, Anthropic's own on a Messages upstream (its API
 * continues a final assistant message; a model that refuses answers with a
 * 400 that ends the turn with the original cut) and none on Chat or
 * Responses, where OpenAI answers anew instead of continuing.
 */
function prefillOf(table: RoutingTable, attempt: RouteAttempt): PrefillDialect | undefined {
  const configured = table.upstreams[attempt.upstream]?.prefill;
  if (configured === false) return undefined;
  return configured ?? (attempt.protocol === 'messages' ? 'messages' : undefined);
}

function targetOf(context: RouteContext, attempt: RouteAttempt, first: boolean): UpstreamTarget {
  const crossFamily = attempt.protocol !== context.protocol;
  const implicit = attempt.upstream === attempt.protocol;
  const baseUrl = crossFamily ? attempt.baseUrl : withClientQuery(attempt.baseUrl, context.requestUrl);
  return resolveUpstreamTarget({
    protocol: attempt.protocol,
    baseUrl,
    headers: context.headers,
    env: context.env,
    mock: context.mock,
    // The simple form's own upstream keeps today's rule and its 401 wording.
    ...(implicit && !crossFamily && first ? {} : { keySource: attempt.keySource, crossFamily }),
  });
}

/**
 * The request's route (R11.1): `resolveRoute` over the config and the
 * `x-turnguard-fallbacks` header (consumed here; the forwarded-header filter
 * keeps it from every upstream), each destination with its key. A fallback
 * whose key is missing is left out of the chain; the first destination's is
 * a 401 in the client's protocol, as before.
 */
export function planTurnRoute(context: RouteContext): TurnRoute {
  const requestModel = typeof context.body.model === 'string' ? context.body.model : '';
  const attempts = resolveRoute(context.table, context.protocol, requestModel, context.headers[FALLBACKS_HEADER]);
  const first = attempts[0]!;
  const target = targetOf(context, first, true);
  const fallbacks: FailoverTarget[] = [];
  for (const attempt of attempts.slice(1)) {
    let fallbackTarget: UpstreamTarget;
    try {
      fallbackTarget = targetOf(context, attempt, false);
    } catch (error) {
      if (TurnError.isInstance(error) && error.code === 'GATEWAY_MISSING_CREDENTIALS') continue;
      throw error;
    }
    const prefill = prefillOf(context.table, attempt);
    fallbacks.push({ adapter: selectAdapter(attempt.protocol), target: fallbackTarget, model: attempt.model, upstream: attempt.upstream, ...(prefill === undefined ? {} : { prefill }) });
  }
  const body = first.model === requestModel || requestModel === '' ? context.body : { ...context.body, model: first.model };
  return {
    body,
    target,
    targetAdapter: first.protocol === context.protocol ? undefined : selectAdapter(first.protocol),
    upstream: first.upstream,
    prefill: prefillOf(context.table, first),
    fallbacks,
    attempts,
  };
}
