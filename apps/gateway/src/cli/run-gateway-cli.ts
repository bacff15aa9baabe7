import { TurnError } from '@turnguard/core';
import { resolveStatsFilePath, runStatsCli, type DashboardServer } from '@turnguard/stats';
import { loadGatewayConfig } from '../config/load-config.js';
import { createGateway, type Gateway } from '../create-gateway.js';
import { PROTOCOLS } from '@turnguard/core';

export const GATEWAY_CLI_USAGE = `Usage: turnguard serve [options]
       turnguard stats [stats options]   (see turnguard stats --help)

turnguard serve: a local gateway that forwards POST /v1/chat/completions,
/v1/messages and /v1/responses with retries (R1) and stream recovery (R4).

  --config <file>             JSON config file (or TURNGUARD_CONFIG)
  --host <host>               listen address (TURNGUARD_HOST, default 127.0.0.1)
  --port <n>                  listen port, 0 = any (TURNGUARD_PORT, default 8787)
  --upstream-chat <url>       (TURNGUARD_UPSTREAM_CHAT, default https://api.openai.com/v1)
  --upstream-responses <url>  (TURNGUARD_UPSTREAM_RESPONSES, default https://api.openai.com/v1)
  --upstream-messages <url>   (TURNGUARD_UPSTREAM_MESSAGES, default https://api.anthropic.com)
  --max-body-bytes <n>        request body limit (TURNGUARD_MAX_BODY_BYTES, default 33554432)
  --stats-file <path>         stats.json (TURNGUARD_STATS_FILE, default ~/.turnguard/stats.json)
  --no-stats                  record no stats
  --stream-recovery <v>       off | on | JSON of lowered limits (TURNGUARD_STREAM_RECOVERY)
  --max-retries <n>           R1 retries (TURNGUARD_MAX_RETRIES, default 10)
  --mock                      forward to the embedded offline mock upstream (TURNGUARD_MOCK=1)

Keys: the client's authorization / x-api-key header is passed through; without
one, OPENAI_API_KEY (chat, responses) or ANTHROPIC_API_KEY (messages) is used.
Keys are never logged or stored.
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
    const { config, help } = await loadGatewayConfig({ argv, env: io.env, defaultStatsPath: resolveStatsFilePath(undefined, io.env) });
    if (help) {
      io.writeOut(GATEWAY_CLI_USAGE);
      return { exitCode: 0 };
    }
    gateway = createGateway({ ...config, env: io.env });
    await gateway.listen();
  } catch (error) {
    const message = TurnError.isInstance(error) ? error.message : `cannot start: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
    io.writeErr(`turnguard serve: ${message}\n`);
    return { exitCode: 2 };
  }
  const url = gateway.url ?? '';
  const lines = [`turnguard gateway listening on ${url}${gateway.config.mock ? ' (mock upstream)' : ''}`];
  for (const protocol of PROTOCOLS) {
    lines.push(`  ${protocol.padEnd(9)} ${url}${protocol === 'chat' ? '/v1/chat/completions' : `/v1/${protocol}`}`);
  }
  lines.push(`  stats     ${gateway.config.statsPath ?? 'off'}`, `  metrics   ${url}/metrics`);
  io.writeOut(`${lines.join('\n')}\n`);
  return { exitCode: 0, gateway };
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
