import type { ChatCompletionCreateParams } from 'openai/resources/chat/completions';
import { resolveEndpointUrl, type UpstreamTarget } from '@turnguard/core';

/** The HTTP request for a Chat body: `POST {baseUrl, with or without /v1}/chat/completions` with a bearer key (openai-node client.ts; decision 0260). */
export function buildChatHttpRequest(native: ChatCompletionCreateParams, target: UpstreamTarget): { url: string; headers: Record<string, string>; body: string };
/** With `body`, the request already serialized (the client's own bytes): sent as given, not serialized again (R8.2). */
export function buildChatHttpRequest(native: ChatCompletionCreateParams, target: UpstreamTarget, body: Uint8Array | undefined): { url: string; headers: Record<string, string>; body: string | Uint8Array };
export function buildChatHttpRequest(
  native: ChatCompletionCreateParams,
  target: UpstreamTarget,
  body?: Uint8Array,
): { url: string; headers: Record<string, string>; body: string | Uint8Array } {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: native.stream === true ? 'text/event-stream' : 'application/json',
  };
  if (target.apiKey !== undefined && target.apiKey !== '') headers.authorization = `Bearer ${target.apiKey}`;
  for (const [name, value] of Object.entries(target.headers ?? {})) headers[name.toLowerCase()] = value;
  return {
    url: resolveEndpointUrl(target.baseUrl, '/chat/completions'),
    headers,
    body: body ?? JSON.stringify(native),
  };
}
