import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadDashboardPayload, startDashboardServer, type DashboardServer } from '../dashboard/serve-dashboard.js';
import { formatSummaryTable } from './format-summary-table.js';

export const STATS_CLI_USAGE = `Usage: turnguard-stats [--file <path>] [--json] [--utc]
       turnguard-stats serve [--file <path>] [--port <n>] [--utc]

Summarises turnguard's stats.json: physical requests and logical turns side by side,
recovery rate, decode speed, TTFT percentiles and an hour-by-weekday heatmap.

  --file <path>  stats file (default: $TURNGUARD_STATS_FILE or ~/.turnguard/stats.json)
  --json         print the summary as JSON
  --utc          bucket the heatmap and days in UTC instead of local time
  --port <n>     dashboard port on 127.0.0.1 (default 7878; 0 = any free port)
  -h, --help     this help
  -v, --version  print the version
`;

export interface StatsCliIo {
  env: Record<string, string | undefined>;
  writeOut(text: string): void;
  writeErr(text: string): void;
}

export interface StatsCliResult {
  exitCode: number;
  /** Set for `serve`: the running dashboard, closed by the caller on exit. */
  server?: DashboardServer;
}

export function resolveStatsFilePath(file: string | undefined, env: Record<string, string | undefined>): string {
  return file ?? env['TURNGUARD_STATS_FILE'] ?? join(homedir(), '.turnguard', 'stats.json');
}

/** The CLI without process globals, so it is testable in-process. */
export async function runStatsCli(argv: readonly string[], io: StatsCliIo): Promise<StatsCliResult> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        file: { type: 'string' },
        json: { type: 'boolean', default: false },
        utc: { type: 'boolean', default: false },
        port: { type: 'string', default: '7878' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    io.writeErr(`${(error as Error).message}\n\n${STATS_CLI_USAGE}`);
    return { exitCode: 2 };
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.writeOut(STATS_CLI_USAGE);
    return { exitCode: 0 };
  }
  const command = positionals[0] ?? 'summary';
  const path = resolveStatsFilePath(values.file, io.env);
  if (command === 'serve') {
    const port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      io.writeErr(`--port must be an integer between 0 and 65535\n`);
      return { exitCode: 2 };
    }
    let server: DashboardServer;
    try {
      server = await startDashboardServer({ file: path, port, utc: values.utc });
    } catch (error) {
      // A start that fails says where and what to change, and exits (never a stack trace).
      const code = (error as NodeJS.ErrnoException).code ?? 'ERROR';
      const why = code === 'EADDRINUSE' ? 'the address is already in use' : 'the server could not listen';
      io.writeErr(`cannot serve the dashboard on 127.0.0.1:${port}: ${why} (${code}). Choose another port with --port <n>; --port 0 takes any free port.\n`);
      return { exitCode: 2 };
    }
    io.writeOut(`turnguard stats dashboard for ${path} at ${server.url} (Ctrl+C to stop)\n`);
    return { exitCode: 0, server };
  }
  if (command !== 'summary') {
    io.writeErr(`unknown command "${command}"\n\n${STATS_CLI_USAGE}`);
    return { exitCode: 2 };
  }
  // The same read → empty/error/summary states the dashboard serves.
  const payload = await loadDashboardPayload(path, values.utc);
  if (values.json) io.writeOut(`${JSON.stringify(payload, null, payload.state === 'ok' ? 2 : undefined)}\n`);
  switch (payload.state) {
    case 'error':
      io.writeErr(`cannot read ${path}: ${payload.message} (${payload.code})\n`);
      return { exitCode: 1 };
    case 'empty':
      if (!values.json) io.writeOut(`No stats recorded yet at ${path}.\n`);
      return { exitCode: 0 };
    case 'ok':
      if (!values.json) io.writeOut(`${formatSummaryTable(payload.summary, path)}\n`);
      return { exitCode: 0 };
    default: {
      const _exhaustive: never = payload;
      return _exhaustive;
    }
  }
}
