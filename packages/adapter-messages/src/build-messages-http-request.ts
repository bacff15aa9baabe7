import { resolveEndpointUrl, type UpstreamTarget } from '@turnguard/core';
import type { MessageCreateParams } from './messages-types.js';

/** The API version every Messages request names (anthropic-sdk-typescript sends the same). */
export const ANTHROPIC_VERSION = '2023-06-01';

/**
 * The HTTP request for a native body. `target.baseUrl` may be given with or
 * without `/v1` (core's `resolveEndpointUrl`, decision 0260): what
 * `new Anthropic({ baseURL })` takes (default `https://api.anthropic.com`; the
 * SDK posts to `baseURL + '/v1/messages'`) works, and so does `…/v1`, which
 * used to post to `/v1/v1/messages`. A trailing slash is ignored.
 *
 * Extra headers from the target come last (beta flags, session ids), but
 * cannot blank the credential or version. The body is sent as given.
 */
export function buildMessagesHttpRequest(native: MessageCreateParams, target: UpstreamTarget): { url: string; headers: Record<string, string>; body: string };
/** With `body`, the request already serialized (the client's own bytes): sent as given, not serialized again (R8.2). */
export function buildMessagesHttpRequest(native: MessageCreateParams, target: UpstreamTarget, body: Uint8Array | undefined): { url: string; headers: Record<string, string>; body: string | Uint8Array };
export function buildMessagesHttpRequest(
  native: MessageCreateParams,
  target: UpstreamTarget,
  body?: Uint8Array,
): { url: string; headers: Record<string, string>; body: string | Uint8Array } {
  const url = resolveEndpointUrl(target.baseUrl, '/messages');
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: native.stream === true ? 'text/event-stream' : 'application/json',
    'anthropic-version': ANTHROPIC_VERSION,
    ...lowerCaseKeys(target.headers ?? {}),
  };
  if (target.apiKey !== undefined && target.apiKey !== '') headers['x-api-key'] = target.apiKey;
  if (headers['anthropic-version'] === '') headers['anthropic-version'] = ANTHROPIC_VERSION;
  return { url, headers, body: body ?? JSON.stringify(native) };
}

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([key, value]) => [key.toLowerCase(), value]));
}
