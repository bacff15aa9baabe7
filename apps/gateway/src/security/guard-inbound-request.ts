import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TurnError } from '@turnguard/core';
import type { InboundSettings } from '../config/inbound-config.js';
import { createClientError } from '../http/protocol-error-body.js';
import { answerPreflight, applyCorsHeaders, isPreflight, judgeOrigin } from './cors-policy.js';
import { createTokenCheck } from './gateway-token.js';
import { createHostAllowList } from './host-allow-list.js';

/** `pass`: serve it; `answered`: a preflight was answered; a TurnError: refuse it with that error. */
export type InboundVerdict = 'pass' | 'answered' | TurnError;

export type InboundGuard = (request: IncomingMessage, response: ServerResponse) => InboundVerdict;

/** Health checks carry nothing and spend nothing: a load balancer may call them without the token. */
const TOKEN_FREE_PATHS = new Set(['/healthz']);

/**
 * R8.9 in the order a careful reverse proxy applies it, before any byte of
 * the body is read: a foreign `Host` (DNS rebinding), then a browser `Origin`
 * that is not configured, then the gateway token. A refused request never
 * reaches the upstream.
 */
export function createInboundGuard(settings: InboundSettings & { host: string }): InboundGuard {
  const hostAllowed = createHostAllowList(settings.host, settings.allowedHosts);
  const origins = new Set(settings.corsOrigins);
  const tokenPresented = settings.authToken === undefined ? undefined : createTokenCheck(settings.authToken);
  return (request, response) => {
    if (!hostAllowed(request.headers.host)) {
      return createClientError(403, 'GATEWAY_FORBIDDEN_HOST', 'The Host header names neither a loopback address nor a configured host (allowedHosts); refused against DNS rebinding.', 'auth');
    }
    const origin = judgeOrigin(request, origins);
    if (origin === 'refused') {
      return createClientError(403, 'GATEWAY_FORBIDDEN_ORIGIN', 'Requests from a browser origin are refused unless that origin is configured (corsOrigins).', 'auth');
    }
    if (origin === 'allowed') {
      if (isPreflight(request)) {
        answerPreflight(request, response);
        return 'answered';
      }
      applyCorsHeaders(request, response);
    }
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    if (tokenPresented !== undefined && !TOKEN_FREE_PATHS.has(path) && !tokenPresented(request)) {
      response.setHeader('www-authenticate', 'Bearer realm="turnguard"');
      return createClientError(401, 'GATEWAY_UNAUTHORIZED', 'This gateway requires its token: send it in x-turnguard-token, or as the API key (Bearer / x-api-key).', 'auth');
    }
    return 'pass';
  };
}
