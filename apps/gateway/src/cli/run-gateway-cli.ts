import { dirname, join } from 'node:path';
import { TurnError } from '@turnguard/core';
import { resolveStatsFilePath, runStatsCli, type DashboardServer } from '@turnguard/stats';
import { loadGatewayConfig } from '../config/load-config.js';
import { createGateway, type Gateway } from '../create-gateway.js';
import { isLoopbackHost } from '../config/inbound-config.js';
import { describeRoutes } from './describe-routes.js';

export const GATEWAY_CLI_USAGE = `Usage: turnguard serve [options]
       turnguard stats [stats options]   (see turnguard stats --help)
       turnguard --version | --help

turnguard serve: a local gateway that forwards POST /v1/chat/completions,
/v1/messages and /v1/responses with retries (R1), stream recovery (R4) and
fail-over (R11: routing, fallbacks, time limits, circuits; see the README).

  --config <file>             JSON config file (or TURNGUARD_CONFIG)
  --host <host>               listen address (TURNGUARD_HOST, default 127.0.0.1)
  --port <n>                  listen port, 0 = any (TURNGUARD_PORT, default 8787)
  --upstream-chat <url>       (TURNGUARD_UPSTREAM_CHAT, default https://api.openai.com/v1)
  --upstream-responses <url>  (TURNGUARD_UPSTREAM_RESPONSES, default https://api.openai.com/v1)
  --upstream-messages <url>   (TURNGUARD_UPSTREAM_MESSAGES, default https://api.anthropic.com)
  --max-body-bytes <n>        request body limit (TURNGUARD_MAX_BODY_BYTES, default 33554432)
  --stats-file <path>         stats.json (TURNGUARD_STATS_FILE, default ~/.turnguard/stats.json;
                              with --mock ~/.turnguard/mock-stats.json)
  --no-stats                  record no stats
  --stream-recovery <v>       off | on | JSON of lowered limits (TURNGUARD_STREAM_RECOVERY)
  --max-retries <n>           retries per upstream (TURNGUARD_MAX_RETRIES, default 4: R11.3's budget)
  --time-limits <v>           off | JSON of upstream limits in ms: connectMs, responseHeadersMs,
                              firstTokenMs, stallBeforeOutputMs, stallAfterOutputMs (TURNGUARD_TIME_LIMITS)
  --continuation <mode>       off | prefill: continue an answer cut mid-text (TURNGUARD_CONTINUATION, default off)
  --mock                      forward to the embedded offline mock upstream (TURNGUARD_MOCK=1)
  --debug-dumps <dir>         write one redacted JSON file (mode 600) per upstream 400 there (TURNGUARD_DEBUG_DUMPS)
  --auth-token <t>            the gateway's own token (prefer TURNGUARD_AUTH_TOKEN: flags show in ps)
  --allowed-host <name>       accept this Host besides loopback names (repeatable; TURNGUARD_ALLOWED_HOSTS)
  --cors-origin <origin>      allow this browser origin (repeatable; TURNGUARD_CORS_ORIGINS)
  --dangerously-allow-unauthenticated-network
                              listen off loopback without a token (env keys are then withheld)
  --headers-timeout-ms <n>    (TURNGUARD_HEADERS_TIMEOUT_MS, default 66000)
  --request-timeout-ms <n>    whole request incl. body (TURNGUARD_REQUEST_TIMEOUT_MS, default 300000)
  --body-idle-timeout-ms <n>  longest gap between body bytes (TURNGUARD_BODY_IDLE_TIMEOUT_MS, default 60000)
  --keep-alive-timeout-ms <n> idle keep-alive (TURNGUARD_KEEP_ALIVE_TIMEOUT_MS, default 65000)
  --log-level <level>         fatal|error|warn|info|debug|trace|silent (TURNGUARD_LOG_LEVEL, default info)
  --log-format <f>            json | pretty (TURNGUARD_LOG_FORMAT, default json)

Keys: the client's authorization / x-api-key header is passed through; without
one, OPENAI_API_KEY (chat, responses) or ANTHROPIC_API_KEY (messages) is used.
With a gateway token, send it in x-turnguard-token, or as the API key to use
the gateway's environment key. Keys are never logged or stored.
`;

export interface GatewayCliIo {
  env: Record<string, string | undefined>;
  writeOut(text: string): void;
  writeErr(text: string): void;
}

export interface GatewayCliResult {
  exitCode: number;
  /** Set for `serve`: the running gateway, closed by the caller on exit. */
  gateway?: Gateway;
  /** Set for `stats serve`: the running dashboard. */
  dashboard?: DashboardServer;
}

async function serve(argv: readonly string[], io: GatewayCliIo): Promise<GatewayCliResult> {
  let gateway: Gateway;
  try {
    const defaultStatsPath = resolveStatsFilePath(undefined, {});
    const { config, help } = await loadGatewayConfig({
      argv,
      env: io.env,
      defaultStatsPath,
      // --mock traffic is not the user's: it goes beside the real stats.json unless a flag, the file or TURNGUARD_STATS_FILE says where.
      defaultMockStatsPath: join(dirname(defaultStatsPath), 'mock-stats.json'),
    });
    if (help) {
      io.writeOut(GATEWAY_CLI_USAGE);
      return { exitCode: 0 };
    }
    // The access log goes to stdout, one line per request (R8.11).
    gateway = createGateway({ ...config, env: io.env, logDestination: { write: (line: string) => io.writeOut(line) } });
    await gateway.listen();
  } catch (error) {
    io.writeErr(`turnguard serve: ${describeStartFailure(error)}\n`);
    return { exitCode: 2 };
  }
  const url = gateway.url ?? '';
  const lines = [`turnguard gateway listening on ${url}${gateway.config.mock ? ' (mock upstream)' : ''}`];
  lines.push(...describeRoutes(url, gateway.mockUpstream?.upstreams ?? gateway.config.upstreams));
  lines.push(`  stats     ${gateway.config.statsPath ?? 'off'}`, `  metrics   ${url}/metrics`, `  auth      ${describeAuth(gateway)}`);
  if (gateway.config.debugDumps !== undefined) lines.push(`  dumps     ${gateway.config.debugDumps} (one file per upstream 400, mode 600)`);
  if (gateway.config.authToken === undefined && gateway.config.dangerouslyAllowUnauthenticatedNetwork && !isLoopbackHost(gateway.config.host)) {
    io.writeErr('turnguard serve: WARNING: listening off loopback WITHOUT a gateway token (--dangerously-allow-unauthenticated-network); environment provider keys are withheld.\n');
  }
  io.writeOut(`${lines.join('\n')}\n`);
  return { exitCode: 0, gateway };
}

/** The flag and variable behind each listen setting, so a failed start says what to change. */
const LISTEN_OPTION_HINTS: Record<string, string> = {
  port: 'Choose another port with --port <n> (or TURNGUARD_PORT); --port 0 takes any free port.',
  host: 'Choose another listen address with --host <address> (or TURNGUARD_HOST), e.g. 127.0.0.1.',
};

/** Every start-up failure in one line: what failed, where, and the option that changes it. */
function describeStartFailure(error: unknown): string {
  if (!TurnError.isInstance(error)) return `cannot start: ${(error as Error).message}`;
  const hint = error.code === 'GATEWAY_LISTEN_FAILED' ? LISTEN_OPTION_HINTS[String(error.details.option)] : undefined;
  return hint === undefined ? error.message : `${error.message} ${hint}`;
}

function describeAuth(gateway: Gateway): string {
  if (gateway.config.authToken !== undefined) return 'gateway token required (x-turnguard-token or as the API key)';
  return isLoopbackHost(gateway.config.host) ? 'none (loopback only)' : 'NONE (off loopback; environment keys withheld)';
}

/** The `turnguard` CLI without process globals, so it is testable in-process. */
export async function runGatewayCli(argv: readonly string[], io: GatewayCliIo): Promise<GatewayCliResult> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return serve(rest, io);
    case 'stats': {
      // Delegates to the stats package's CLI (summary table, JSON, dashboard).
      const result = await runStatsCli(rest, io);
      return { exitCode: result.exitCode, ...(result.server === undefined ? {} : { dashboard: result.server }) };
    }
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      io.writeOut(GATEWAY_CLI_USAGE);
      return { exitCode: command === undefined ? 2 : 0 };
    default:
      io.writeErr(`turnguard: unknown command "${command}"\n\n${GATEWAY_CLI_USAGE}`);
      return { exitCode: 2 };
  }
}
