import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Debian's `prometheus` package, installed by scripts/ensure-prometheus.mjs where the machine allows. */
export const PROMETHEUS_BINARY = '/usr/bin/prometheus';
export const hasPrometheus = existsSync(PROMETHEUS_BINARY);

export interface PrometheusServer {
  url: string;
  /** One instant PromQL query over the HTTP API: each series' labels and value. */
  query(promql: string): Promise<Array<{ metric: Record<string, string>; value: number }>>;
  /** Re-runs `promql` until `accept` holds for its result (scrapes are 1 s apart), then returns it. */
  waitFor(promql: string, accept: (result: Array<{ metric: Record<string, string>; value: number }>) => boolean, timeoutMs?: number): Promise<Array<{ metric: Record<string, string>; value: number }>>;
  close(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.once('error', reject);
  });
}

/**
 * A real Prometheus on loopback with the configuration `writeConfig` returns
 * (YAML text); it may write files (a credentials file) into `dir`, Prometheus's
 * own temporary folder, which also holds its data. Killed on close.
 */
export async function startPrometheus(writeConfig: (dir: string) => Promise<string>): Promise<PrometheusServer> {
  const dir = await mkdtemp(join(tmpdir(), 'tg-prometheus-'));
  await writeFile(join(dir, 'prometheus.yml'), await writeConfig(dir));
  const port = await freePort();
  const child: ChildProcess = spawn(
    PROMETHEUS_BINARY,
    [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const url = `http://127.0.0.1:${port}`;
  const query: PrometheusServer['query'] = async (promql) => {
    const response = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`);
    const body = (await response.json()) as { status: string; error?: string; data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> } };
    if (body.status !== 'success') throw new Error(`PromQL ${promql}: ${body.error ?? response.status}`);
    return body.data.result.map((series) => ({ metric: series.metric, value: Number(series.value[1]) }));
  };
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prometheus exited ${child.exitCode}: ${stderr}`);
    const ready = await fetch(`${url}/-/ready`).then((response) => response.ok, () => false);
    if (ready) break;
    if (Date.now() > deadline) throw new Error(`prometheus not ready after 15 s: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    query,
    async waitFor(promql, accept, timeoutMs = 15_000) {
      const until = Date.now() + timeoutMs;
      let last: Awaited<ReturnType<typeof query>> = [];
      while (Date.now() < until) {
        last = await query(promql);
        if (accept(last)) return last;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      throw new Error(`PromQL ${promql} never matched; last result ${JSON.stringify(last)}`);
    },
    async close() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
