import { chatAdapter } from '@turnguard/adapter-chat';
import { messagesAdapter } from '@turnguard/adapter-messages';
import { responsesAdapter } from '@turnguard/adapter-responses';
import type { Protocol, ProtocolAdapter } from '@turnguard/core';

/**
 * The three recovery routes (R8.1), with and without the `/v1` prefix (R8.8):
 * the AI SDK's Anthropic provider posts to `${baseURL}/messages` (its default
 * base URL ends in `/v1`), so given the gateway's bare URL it posts `/messages`.
 */
export const ROUTE_PROTOCOLS: ReadonlyMap<string, Protocol> = new Map<string, Protocol>([
  ['/v1/chat/completions', 'chat'],
  ['/v1/messages', 'messages'],
  ['/v1/responses', 'responses'],
  ['/chat/completions', 'chat'],
  ['/messages', 'messages'],
  ['/responses', 'responses'],
]);

/** The upstream families a pass-through request can go to: OpenAI's (Chat and Responses share one) or Anthropic's. */
export type UpstreamFamily = 'openai' | 'anthropic';

/**
 * Which upstream a path that is not a recovery route goes to (R8.8). Anthropic's
 * own paths (`/v1/messages/count_tokens`, `/v1/messages/batches`) by their path;
 * a path both APIs have (`/v1/models`, `/v1/files`) by the `anthropic-version`
 * header that anthropic-sdk-typescript and Claude Code send on every request.
 */
export function selectPassThroughFamily(path: string, anthropicVersion: string | string[] | undefined): UpstreamFamily {
  const bare = path.split('?')[0] ?? '';
  if (/^(\/v1)?\/messages(\/|$)/.test(bare)) return 'anthropic';
  return anthropicVersion === undefined ? 'openai' : 'anthropic';
}


/** Which protocol a request path is for; a trailing slash and a query string are ignored. */
export function findRouteProtocol(path: string): Protocol | undefined {
  const queryAt = path.indexOf('?');
  const bare = (queryAt === -1 ? path : path.slice(0, queryAt)).replace(/\/+$/, '');
  return ROUTE_PROTOCOLS.get(bare);
}

export function selectAdapter(protocol: Protocol): ProtocolAdapter<object> {
  switch (protocol) {
    case 'chat':
      return chatAdapter as unknown as ProtocolAdapter<object>;
    case 'messages':
      return messagesAdapter as unknown as ProtocolAdapter<object>;
    case 'responses':
      return responsesAdapter as unknown as ProtocolAdapter<object>;
    default: {
      const _exhaustive: never = protocol;
      return _exhaustive;
    }
  }
}
