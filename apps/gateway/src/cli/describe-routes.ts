import { PROTOCOLS, resolveEndpointUrl, type Protocol } from '@turnguard/core';

const ENDPOINTS: Record<Protocol, string> = { chat: '/chat/completions', messages: '/messages', responses: '/responses' };

/** An upstream URL for the banner: origin and path only; a query string may hold a key (`?key=`, R8.5). */
function withoutSecrets(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

/**
 * The start-up banner's routing lines (R12.3): which gateway URL forwards to
 * which upstream endpoint, and where every other path goes (R8.8), so an
 * operator reading the first lines of a replica's log knows where it sends
 * traffic.
 */
export function describeRoutes(gatewayUrl: string, upstreams: Record<Protocol, string>): string[] {
  const lines = PROTOCOLS.map((protocol) => `  ${protocol.padEnd(9)} ${gatewayUrl}/v1${ENDPOINTS[protocol]} → ${withoutSecrets(resolveEndpointUrl(upstreams[protocol], ENDPOINTS[protocol]))}`);
  lines.push(`  other     ${gatewayUrl}/v1/* → ${withoutSecrets(upstreams.chat)} (with anthropic-version or under /v1/messages/: ${withoutSecrets(upstreams.messages)})`);
  return lines;
}
