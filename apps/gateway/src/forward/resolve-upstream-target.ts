import type { IncomingHttpHeaders } from 'node:http';
import type { Protocol, UpstreamTarget } from '@turnguard/core';
import { createClientError } from '../http/protocol-error-body.js';

/** Where a protocol's key is read from when the client sent none (the SDKs' own variable names). */
export const CREDENTIAL_ENV: Record<Protocol, string> = {
  chat: 'OPENAI_API_KEY',
  responses: 'OPENAI_API_KEY',
  messages: 'ANTHROPIC_API_KEY',
};

/**
 * Client headers relayed upstream unchanged: beta flags and account scoping
 * that change what the upstream accepts. Everything else (user agents, SDK
 * retry counters, hop-by-hop headers) stays at the gateway.
 */
const RELAYED_HEADERS = ['anthropic-beta', 'openai-organization', 'openai-project', 'openai-beta'] as const;

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

export interface TargetContext {
  protocol: Protocol;
  baseUrl: string;
  headers: IncomingHttpHeaders;
  env: Record<string, string | undefined>;
  /** The embedded mock upstream needs no real key. */
  mock: boolean;
}

/**
 * R8.5: the key passes through from the client's headers or comes from the
 * environment; it lives only in this per-request target and is never
 * logged, stored or put into stats. No key at all → 401 in the protocol's shape.
 */
export function resolveUpstreamTarget(context: TargetContext): UpstreamTarget {
  const apiKey = readClientKey(context.headers) ?? context.env[CREDENTIAL_ENV[context.protocol]] ?? (context.mock ? 'turnguard-mock' : undefined);
  if (apiKey === undefined || apiKey === '') {
    throw createClientError(
      401,
      'GATEWAY_MISSING_CREDENTIALS',
      `No API key: send one in the authorization or x-api-key header, or set ${CREDENTIAL_ENV[context.protocol]} for the gateway.`,
      'auth',
    );
  }
  const headers: Record<string, string> = {};
  for (const name of RELAYED_HEADERS) {
    const value = readHeader(context.headers, name);
    if (value !== undefined) headers[name] = value;
  }
  return { baseUrl: context.baseUrl, apiKey, headers };
}
