import { resolveEndpointUrl, type UpstreamTarget } from '@turnguard/core';
import type { ResponseCreateParams } from 'openai/resources/responses/responses';

/**
 * The HTTP request for a Responses body: `POST {baseUrl, with or without /v1}/responses` (decision 0260) with a
 * bearer key (openai-node `client.ts` `authHeaders`). Target headers are applied
 * last so a host can override any of ours. Pure: the caller does the I/O.
 */
export function buildResponsesHttpRequest(native: ResponseCreateParams, target: UpstreamTarget): { url: string; headers: Record<string, string>; body: string };
/** With `body`, the request already serialized (the client's own bytes): sent as given, not serialized again (R8.2). */
export function buildResponsesHttpRequest(native: ResponseCreateParams, target: UpstreamTarget, body: Uint8Array | undefined): { url: string; headers: Record<string, string>; body: string | Uint8Array };
export function buildResponsesHttpRequest(
  native: ResponseCreateParams,
  target: UpstreamTarget,
  body?: Uint8Array,
): { url: string; headers: Record<string, string>; body: string | Uint8Array } {
  const url = resolveEndpointUrl(target.baseUrl, '/responses');
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: native.stream === true ? 'text/event-stream' : 'application/json',
    ...(target.apiKey !== undefined ? { authorization: `Bearer ${target.apiKey}` } : {}),
    ...target.headers,
  };
  return { url, headers, body: body ?? JSON.stringify(native) };
}
