import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { TurnError, type FetchFunction, type Protocol, type StatsSink } from '@turnguard/core';
import { createTempDirDebugDumpWriter } from '@turnguard/core/node';
import { createStatsStore, type StatsStore } from '@turnguard/stats';
import { resolveGatewayConfig, type GatewayConfig, type GatewayConfigInput } from './config/gateway-config.js';
import { forwardTurn, type ForwardContext } from './forward/forward-turn.js';
import { ResponseIdChains } from './forward/response-id-chains.js';
import { createNodeHttpFetch, type NodeHttpFetch } from './http/create-node-http-fetch.js';
import { sendJson, sendProtocolError } from './http/send-json.js';
import { createClientError } from './http/protocol-error-body.js';
import { answerClientError, type HttpClientError } from './security/answer-client-error.js';
import { limitBodyIdle } from './security/limit-body-idle.js';
import { createMeteredSink, GatewayMetrics } from './metrics/gateway-metrics.js';
import { startMockUpstream, type MockUpstreamHandle } from './mock-upstream.js';
import { findRouteProtocol, selectPassThroughFamily } from './protocol-routes.js';
import { createInboundGuard } from './security/guard-inbound-request.js';
import { withholdEnvironmentKeys } from './security/withhold-environment-keys.js';
import { createGatewayLogger, createSilentLogger, type GatewayLogger, type LogDestination } from './logging/create-gateway-logger.js';
import { notePassThrough, noteRefusal, startAccessLog } from './logging/access-log.js';
import { assignRequestId, upstreamHostOf } from './logging/request-id.js';
import { createTurnWatcher } from './logging/turn-watch.js';
import { createInboundServer } from './http/create-inbound-server.js';
import { createListenError } from './http/listen-error.js';
import { CREDENTIAL_ENV } from './forward/resolve-upstream-target.js';
import { passThroughRequest } from './forward/pass-through-request.js';
import { readOtelEnv } from './telemetry/read-otel-env.js';
import { startGatewayTelemetry, type GatewayTelemetry } from './telemetry/start-gateway-telemetry.js';
import { buildRetryBudget } from './config/failover-config.js';
import { buildRoutingTable } from './routing/routing-table.js';
import { createCircuitBreakers, declareConfiguredModels } from './forward/gateway-circuits.js';

export interface GatewayOptions extends GatewayConfigInput {
  /** Where credentials come from when the client sends none (R8.5). Default: `process.env`. */
  env?: Record<string, string | undefined>;
  /** A stats sink instead of `statsPath` (tests, embedding). */
  stats?: StatsSink;
  /**
   * Injectable upstream transport. Default: undici with keep-alive
   * pools (createNodeHttpFetch), cheaper per request than the global `fetch`.
   */
  fetch?: FetchFunction;
  now?: () => number;
  /** Where the access log goes (the CLI: stdout); without one the gateway logs nothing (R8.11). */
  logDestination?: LogDestination;
  /** Gap between `: keep-alive` comment lines while a stream's upstream is silent (decision 0233). Default 15 s. */
  sseKeepAliveMs?: number;
}

export interface Gateway {
  /** Starts listening (and the embedded mock upstream when `mock`); resolves with the bound address. */
  listen(): Promise<AddressInfo>;
  /** Stops accepting, ends open connections, closes the mock and flushes stats. */
  close(): Promise<void>;
  /** The bound address once listening. */
  readonly address: AddressInfo | undefined;
  /** `http://host:port` once listening; OpenAI clients use `${url}/v1`, Anthropic clients `url`. */
  readonly url: string | undefined;
  readonly config: GatewayConfig;
  readonly metrics: GatewayMetrics;
  /** The embedded upstream when `mock` is on (its scenario queues are open to tests and the probe). */
  readonly mockUpstream: MockUpstreamHandle | undefined;
  /** The access and warning log (pino). */
  readonly logger: GatewayLogger;
}

/** Which protocol's error shape fits an unknown path: Anthropic's for `/messages`-like paths, else OpenAI's. */
function guessProtocol(path: string): Protocol {
  return path.includes('messages') && !path.includes('chat') ? 'messages' : 'chat';
}

/** What `OPTIONS` answers (R8.8); a CORS preflight policy is the security layer's (R8.9). */
const ALLOWED_METHODS = 'GET, HEAD, POST, OPTIONS';

/**
 * The local forwarding gateway (R8): `POST /v1/chat/completions`,
 * `/v1/messages`, `/v1/responses`, `GET /healthz`, `GET /metrics` over plain
 * `node:http`. Config errors throw a `TurnError` here, before anything listens.
 */
export function createGateway(options: GatewayOptions = {}): Gateway {
  const { env, stats, fetch, now, logDestination, sseKeepAliveMs, ...input } = options;
  const config = resolveGatewayConfig(input);
  // R12.1: OpenTelemetry from the standard OTEL_* variables of the process (as every OTel SDK reads them); off when unset.
  const otelSetup = readOtelEnv(process.env);
  const logger = logDestination === undefined ? createSilentLogger() : createGatewayLogger(config.logLevel, config.logFormat, logDestination);
  const guard = createInboundGuard(config);
  const metrics = new GatewayMetrics();
  declareConfiguredModels(metrics, config.routing);
  // R11.5: one set of circuits per process (a fleet's replicas each keep their own, decision 0405).
  const circuitBreakers = createCircuitBreakers(config, metrics, logger, now);
  const sockets = new Set<Socket>();
  let store: StatsStore | undefined;
  let mock: MockUpstreamHandle | undefined;
  let address: AddressInfo | undefined;
  let context: ForwardContext | undefined;
  let transport: NodeHttpFetch | undefined;
  let telemetry: GatewayTelemetry | undefined;
  // One undici dispatcher for the recovery routes and the pass-through ones (proxy variables from the gateway's env).
  const connectMs = config.timeLimits.connectMs;
  const upstreamTransport = (): NodeHttpFetch =>
    (transport ??= createNodeHttpFetch({ env: env ?? process.env, ...(typeof connectMs === 'number' ? { connectTimeoutMs: connectMs } : {}) }));

  /** Closes what `listen` opened besides the server: the transport's pools, the mock, the stats store. */
  const releaseResources = async (): Promise<void> => {
    context = undefined;
    transport?.destroy();
    transport = undefined;
    await mock?.close();
    mock = undefined;
    await store?.close().catch(() => undefined);
    store = undefined;
    // What the turns reported is exported before close resolves.
    await telemetry?.shutdown().catch(() => undefined);
    telemetry = undefined;
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = request.url ?? '/';
    const protocol = findRouteProtocol(path);
    // The forwarded turn's promise is this request's: the handler's catch below covers it.
    if (protocol !== undefined && request.method === 'POST' && context !== undefined) return forwardTurn(protocol, request, response, context);
    const bare = path.split('?')[0];
    if (request.method === 'OPTIONS') {
      request.resume();
      response.writeHead(204, { allow: ALLOWED_METHODS, 'content-length': '0' });
      response.end();
      return;
    }
    const isRead = request.method === 'GET' || request.method === 'HEAD';
    if (isRead && (bare === '/healthz' || bare === '/metrics')) {
      request.resume();
      if (bare === '/healthz') sendJson(response, 200, { status: 'ok' });
      else {
        const text = await metrics.render();
        response.writeHead(200, { 'content-type': metrics.contentType, 'content-length': String(Buffer.byteLength(text)) });
        response.end(text);
      }
      return;
    }
    if (context === undefined) {
      request.resume();
      response.writeHead(503, { 'content-length': '0' });
      response.end();
      return;
    }
    // R8.8: every other path and method goes to its protocol family's upstream unchanged, with no recovery.
    const family = selectPassThroughFamily(path, request.headers['anthropic-version']);
    const keyProtocol = family === 'anthropic' ? 'messages' : 'chat';
    notePassThrough(response, upstreamHostOf(context.upstreams[keyProtocol]));
    return passThroughRequest(request, response, { family, baseUrl: context.upstreams[keyProtocol], envKey: context.env[CREDENTIAL_ENV[keyProtocol]] }, upstreamTransport().dispatcher);
  };

  const refuse = (response: ServerResponse, path: string, error: TurnError): void => {
    metrics.rejected.inc({ code: error.code });
    noteRefusal(response, error.code);
    sendProtocolError(response, findRouteProtocol(path) ?? guessProtocol(path), error, error.status);
  };

  /** The response of each socket's current request, for a request time-out that fires while its body is read. */
  const responses = new WeakMap<Socket, ServerResponse>();
  const idleBody = createClientError(
    408,
    'GATEWAY_BODY_IDLE',
    `No byte of the request body arrived for ${config.bodyIdleTimeoutMs / 1000} s (bodyIdleTimeoutMs); the connection is closed.`,
  );

  const server: Server = createInboundServer(config, (request, response) => {
    // R12.3: before anything can answer, so every response and log line of this request carries it.
    assignRequestId(request, response);
    startAccessLog(logger, request, response, now ?? Date.now);
    responses.set(request.socket, response);
    limitBodyIdle(request, config.bodyIdleTimeoutMs, () => {
      if (response.headersSent) return void response.destroy();
      response.setHeader('connection', 'close');
      refuse(response, (request.url ?? '/').split('?')[0] ?? '/', idleBody);
    });
    const verdict = guard(request, response);
    if (verdict !== 'pass') {
      request.resume();
      if (verdict !== 'answered') refuse(response, (request.url ?? '/').split('?')[0] ?? '/', verdict);
      return;
    }
    handle(request, response).catch(() => {
      // Never crash the server for one request; the socket is released.
      if (!response.headersSent) sendJson(response, 500, { error: { message: 'Internal gateway error.', type: 'server_error', param: null, code: 'GATEWAY_INTERNAL' } });
      else response.destroy();
    });
  });
  // R8.9: a request node:http could not read (headers over its limit, a request time-out) gets a readable answer, a log line and a metric.
  server.on('clientError', (error: HttpClientError, socket: Socket) =>
    answerClientError(error, socket, {
      logger,
      metrics,
      responseOn: (on) => {
        const response = responses.get(on);
        return response === undefined || response.writableEnded ? undefined : response;
      },
    }),
  );
  server.on('connection', (socket) => {
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  return {
    config,
    metrics,
    get address() {
      return address;
    },
    get url() {
      return address === undefined ? undefined : `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
    },
    get mockUpstream() {
      return mock;
    },
    logger,
    async listen() {
      if (address !== undefined) return address;
      try {
        mock = config.mock ? await startMockUpstream() : undefined;
        if (stats === undefined && config.statsPath !== undefined) store = createStatsStore({ path: config.statsPath });
        const upstreams = mock?.upstreams ?? config.upstreams;
        telemetry = otelSetup === undefined ? undefined : await startGatewayTelemetry(otelSetup);
        context = {
          config,
          upstreams,
          env: withholdEnvironmentKeys(config, env ?? process.env),
          sink: createMeteredSink(metrics, stats ?? store),
          metrics,
          watchTurn: createTurnWatcher(logger, metrics, upstreams),
          fetch: fetch ?? upstreamTransport().fetch,
          now: now ?? Date.now,
          responseChains: new ResponseIdChains(),
          logger,
          telemetry,
          routing: buildRoutingTable(config.routing, upstreams),
          retryBudget: buildRetryBudget(config.retry),
          circuitBreakers,
          ...(sseKeepAliveMs === undefined ? {} : { sseKeepAliveMs }),
          ...(config.debugDumps === undefined ? {} : { writeDebugDump: createTempDirDebugDumpWriter({ directory: config.debugDumps }) }),
        };
        await listenOn(server, config.port, config.host);
      } catch (error) {
        // Nothing half-started may keep the process alive: the mock's listener and the transport's pools go too.
        await releaseResources();
        throw TurnError.isInstance(error) ? error : createListenError(error, config.host, config.port);
      }
      address = server.address() as AddressInfo;
      return address;
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      for (const socket of sockets) socket.destroy();
      await closed;
      address = undefined;
      await releaseResources();
    },
  };
}

function listenOn(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
