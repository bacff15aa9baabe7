import { chatAdapter } from '@turnguard/adapter-chat';
import { messagesAdapter } from '@turnguard/adapter-messages';
import { responsesAdapter } from '@turnguard/adapter-responses';
import type { Protocol, ProtocolAdapter } from '@turnguard/core';

/** The three forwarded routes (R8.1), as the official SDKs post them. */
export const ROUTE_PROTOCOLS: ReadonlyMap<string, Protocol> = new Map<string, Protocol>([
  ['/v1/chat/completions', 'chat'],
  ['/v1/messages', 'messages'],
  ['/v1/responses', 'responses'],
]);


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
