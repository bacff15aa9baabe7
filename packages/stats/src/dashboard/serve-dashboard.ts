import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readStatsFile } from '../store/stats-file-io.js';
import { summarizeStats, type StatsSummary } from '../summary/summarize-stats.js';
import { renderDashboardPage } from './dashboard-page.js';

export type DashboardPayload =
  | { state: 'ok'; path: string; summary: StatsSummary }
  | { state: 'empty'; path: string }
  | { state: 'error'; path: string; code: string; message: string };

/** Re-reads the file on every call, so the page is always live. */
export async function loadDashboardPayload(path: string, utc = false): Promise<DashboardPayload> {
  const result = await readStatsFile(path);
  if (result.status === 'missing') return { state: 'empty', path };
  if (result.status === 'error') return { state: 'error', path, code: result.code, message: result.message };
  const summary = summarizeStats(result.file, { utc });
  if (summary.physical.requests === 0 && summary.logical.turns === 0) return { state: 'empty', path };
  return { state: 'ok', path, summary };
}

export interface DashboardServerOptions {
  file: string;
  /** 0 picks a free port. */
  port: number;
  /** Loopback only by default: the page is for the local user. */
  host?: string;
  utc?: boolean;
}

export interface DashboardServer {
  url: string;
  close(): Promise<void>;
}

export async function startDashboardServer(options: DashboardServerOptions): Promise<DashboardServer> {
  const page = renderDashboardPage();
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const headers = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };
    if (request.method !== 'GET') {
      response.writeHead(405, headers).end();
      return;
    }
    if (url.pathname === '/') {
      response.writeHead(200, { ...headers, 'content-type': 'text/html; charset=utf-8' }).end(page);
      return;
    }
    if (url.pathname === '/api/summary') {
      loadDashboardPayload(options.file, options.utc)
        .then((payload) => {
          response.writeHead(payload.state === 'error' ? 500 : 200, { ...headers, 'content-type': 'application/json' }).end(JSON.stringify(payload));
        })
        .catch(() => {
          const payload: DashboardPayload = { state: 'error', path: options.file, code: 'STATS_READ_FAILED', message: 'the stats file could not be summarised' };
          response.writeHead(500, { ...headers, 'content-type': 'application/json' }).end(JSON.stringify(payload));
        });
      return;
    }
    response.writeHead(404, headers).end();
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}/`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
