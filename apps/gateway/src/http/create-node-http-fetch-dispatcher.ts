import { Agent, EnvHttpProxyAgent, type Dispatcher } from 'undici';

export type GatewayEnv = Record<string, string | undefined>;

/**
 * undici Agent options for upstream connections. Long thinking streams are
 * silent for minutes: runTurn's own deadlines (R4.2) bound them, not undici's
 * 300 s header/body timeouts, which are turned off. Keep-alive and the idle
 * timeout are undici's defaults (4 s, or the server's `keep-alive: timeout`
 * hint less a second), which avoid writing into a server's close.
 */
const AGENT_OPTIONS = { headersTimeout: 0, bodyTimeout: 0 } as const;

/** The lower-case spelling wins, as curl and undici read these variables. */
function readProxyVariable(env: GatewayEnv, name: string): string | undefined {
  const value = env[name.toLowerCase()] ?? env[name.toUpperCase()];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/**
 * The dispatcher for upstream requests: a plain keep-alive Agent, or, when
 * the gateway's env sets `HTTP_PROXY` / `HTTPS_PROXY`, undici's
 * EnvHttpProxyAgent with those values and `NO_PROXY` read from that env (never
 * process.env behind the caller's back: `createGateway({ env })` decides).
 * https targets go through a CONNECT tunnel; http targets are sent to an http
 * proxy in absolute form (`proxyTunnel: false`), which every forward proxy
 * accepts, while a CONNECT-only proxy still gets CONNECT for https.
 */
export function createUpstreamDispatcher(env: GatewayEnv, ca?: string | Buffer, connectTimeoutMs?: number): Dispatcher {
  // R11.4: the connect limit is the transport's (only it can tell a connection from a response); undici's default is 10 s.
  const tls = ca === undefined && connectTimeoutMs === undefined ? undefined : { ...(ca === undefined ? {} : { ca }), ...(connectTimeoutMs === undefined ? {} : { timeout: connectTimeoutMs }) };
  const httpProxy = readProxyVariable(env, 'http_proxy');
  const httpsProxy = readProxyVariable(env, 'https_proxy');
  if (httpProxy === undefined && httpsProxy === undefined) return new Agent({ ...AGENT_OPTIONS, ...(tls && { connect: tls }) });
  return new EnvHttpProxyAgent({
    ...AGENT_OPTIONS,
    // `connect` for NO_PROXY targets, `requestTls` for the TLS inside a CONNECT tunnel.
    ...(tls && { connect: tls, requestTls: tls }),
    // '' (not undefined): undici would otherwise fall back to process.env.
    httpProxy: httpProxy ?? '',
    // Without HTTPS_PROXY, undici sends https through HTTP_PROXY too (env-http-proxy-agent.js).
    httpsProxy: httpsProxy ?? '',
    noProxy: readProxyVariable(env, 'no_proxy') ?? '',
    proxyTunnel: false,
  });
}
