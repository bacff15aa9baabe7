import type { IncomingHttpHeaders } from 'node:http';
import type { Protocol, UpstreamTarget } from '@turnguard/core';
import { createClientError } from '../http/protocol-error-body.js';
import { RECOVERY_ROUTE_OWN_REQUEST_HEADERS, selectForwardedRequestHeaders } from './forwarded-headers.js';
import { resolveAttemptCredentials } from '../routing/key-source.js';
import type { KeySource } from '../routing/routing-schema.js';

/** Where a protocol's key is read from when the client sent none (the SDKs' own variable names). */
export const CREDENTIAL_ENV: Record<Protocol, string> = {
  chat: 'OPENAI_API_KEY',
  responses: 'OPENAI_API_KEY',
  messages: 'ANTHROPIC_API_KEY',
};

function readHeader(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}

/** The key the client sent: `authorization: Bearer …` (openai-node) or `x-api-key` (anthropic-sdk-typescript). */
function readClientKey(headers: IncomingHttpHeaders): string | undefined {
  const apiKey = readHeader(headers, 'x-api-key');
  if (apiKey !== undefined) return apiKey;
  const authorization = readHeader(headers, 'authorization');
  const match = authorization === undefined ? null : /^Bearer\s+(.+)$/i.exec(authorization);
  return match?.[1]?.trim() || undefined;
}

/**
 * R8.6: the client's query string goes upstream too (Claude Code posts
 * `/v1/messages?beta=true`); a query the configured upstream base already has
 * (Azure's `api-version`) comes first. The adapters keep a base URL's query at
 * the end of the endpoint URL (core's resolveEndpointUrl).
 */
export function withClientQuery(baseUrl: string, requestUrl: string | undefined): string {
  const queryAt = requestUrl?.indexOf('?') ?? -1;
  if (requestUrl === undefined || queryAt === -1 || queryAt === requestUrl.length - 1) return baseUrl;
  const clientQuery = requestUrl.slice(queryAt + 1);
  return baseUrl.includes('?') ? `${baseUrl}&${clientQuery}` : `${baseUrl}?${clientQuery}`;
}

export interface TargetContext {
  protocol: Protocol;
  baseUrl: string;
  headers: IncomingHttpHeaders;
  env: Record<string, string | undefined>;
  /** The embedded mock upstream needs no real key. */
  mock: boolean;
  /** R11.1: where a configured upstream's key comes from; default: the client's, else the protocol's own variable. */
  keySource?: KeySource;
  /** R11.1: the upstream speaks another protocol family than the client (default false). */
  crossFamily?: boolean;
}

/**
 * R8.5: the key passes through from the client's headers or comes from the
 * environment; it lives only in this per-request target and is never
 * logged, stored or put into stats. No key at all → 401 in the protocol's shape.
 *
 * R8.6: the client's headers go upstream unchanged, its own auth header
 * included (`Authorization: Bearer` on /v1/messages stays Bearer: the SDK's
 * `authToken`, Claude Code's `ANTHROPIC_AUTH_TOKEN`), so `apiKey` is set only
 * when the key comes from the environment and the adapter adds the
 * protocol's usual header for it.
 */
export function resolveUpstreamTarget(context: TargetContext): UpstreamTarget {
  if (context.keySource !== undefined || context.crossFamily === true) return resolveConfiguredTarget(context);
  const headers = selectForwardedRequestHeaders(context.headers, RECOVERY_ROUTE_OWN_REQUEST_HEADERS);
  if (readClientKey(context.headers) !== undefined) return { baseUrl: context.baseUrl, headers };
  const apiKey = context.env[CREDENTIAL_ENV[context.protocol]] ?? (context.mock ? 'turnguard-mock' : undefined);
  if (apiKey === undefined || apiKey === '') {
    throw createClientError(
      401,
      'GATEWAY_MISSING_CREDENTIALS',
      `No API key: send one in the authorization or x-api-key header, or set ${CREDENTIAL_ENV[context.protocol]} for the gateway.`,
      'auth',
    );
  }
  // An empty auth header the client sent must not blank the environment's key.
  delete headers.authorization;
  delete headers['x-api-key'];
  return { baseUrl: context.baseUrl, apiKey, headers };
}

/**
 * A configured upstream's target (R11.1, R8.5): its key from its key source.
 * The same family gets the client's headers as the simple form does (R8.6);
 * another family gets none of them — they are the client protocol's own
 * (`anthropic-version`, `x-stainless-*`, its provider's key) — and its key
 * from the environment, unless the config says the client's key is for it
 * (`"apiKey": "client"`).
 */
function resolveConfiguredTarget(context: TargetContext): UpstreamTarget {
  const keySource = context.keySource ?? { from: 'client-or-env', name: CREDENTIAL_ENV[context.protocol] };
  const crossFamily = context.crossFamily === true;
  const clientKey = readClientKey(context.headers);
  const clientKeyFits = clientKey !== undefined && (!crossFamily || keySource.from === 'client');
  const credentials = resolveAttemptCredentials(keySource, clientKeyFits, context.env);
  const headers = crossFamily ? {} : selectForwardedRequestHeaders(context.headers, RECOVERY_ROUTE_OWN_REQUEST_HEADERS);
  if (credentials.kind === 'client') return crossFamily ? { baseUrl: context.baseUrl, apiKey: clientKey!, headers } : { baseUrl: context.baseUrl, headers };
  const apiKey = credentials.kind === 'key' ? credentials.apiKey : context.mock ? 'turnguard-mock' : undefined;
  if (apiKey === undefined) {
    throw createClientError(401, 'GATEWAY_MISSING_CREDENTIALS', `No API key for this upstream: looked for ${(credentials as { lookedFor: string }).lookedFor}.`, 'auth');
  }
  delete headers.authorization;
  delete headers['x-api-key'];
  return { baseUrl: context.baseUrl, apiKey, headers };
}
