import { createServer, type RequestListener, type Server } from 'node:http';
import type { InboundSettings } from '../config/inbound-config.js';

/** node:http checks header/request deadlines on this interval (its default, 30 s, would let a 66 s limit fire at 96 s). */
const MAX_CHECK_INTERVAL_MS = 1_000;

/**
 * The client-facing server with R8.9's time-outs, as a reverse proxy sets
 * them: `headersTimeout` for the request head (slowloris), `requestTimeout`
 * for the whole request including its body (a body that never ends, or is
 * shorter than its content-length), `keepAliveTimeout` for an idle
 * keep-alive connection. node:http tracks the two request deadlines only
 * until the request has been received, so a response may take as long as it
 * needs: long silent thinking streams are never cut (`server.timeout` stays 0,
 * no socket idle time-out while a response is open).
 */
export function createInboundServer(settings: InboundSettings, listener: RequestListener): Server {
  const server = createServer(
    {
      headersTimeout: settings.headersTimeoutMs,
      requestTimeout: settings.requestTimeoutMs,
      keepAliveTimeout: settings.keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.min(MAX_CHECK_INTERVAL_MS, Math.max(10, Math.floor(settings.headersTimeoutMs / 4))),
    },
    listener,
  );
  server.timeout = 0;
  return server;
}
