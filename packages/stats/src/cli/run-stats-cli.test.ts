import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createStatsStore } from '../store/stats-store.js';
import { createTestSample } from '../store/test-samples.js';
import { makeTurnRecordCountedAs } from '../store/test-turns.js';
import { resolveStatsFilePath, runStatsCli } from './run-stats-cli.js';

let dir: string;
let path: string;
let out: string;
let err: string;
const io = () => ({ env: {}, writeOut: (text: string) => (out += text), writeErr: (text: string) => (err += text) });

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tg-stats-cli-'));
  path = join(dir, 'stats.json');
  out = '';
  err = '';
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function writeRecoveredTurn(): Promise<void> {
  const store = createStatsStore({ path });
  void store.recordUsage(createTestSample({ ok: false, recoveryAttempt: false, recovered: false }));
  void store.recordUsage(createTestSample({ ok: true, errorCode: undefined }));
  void store.recordTurn(makeTurnRecordCountedAs('recovered'));
  await store.close();
}

describe('turnguard-stats CLI', () => {
  it('resolves the file from --file, then $TURNGUARD_STATS_FILE, then ~/.turnguard/stats.json', () => {
    expect(resolveStatsFilePath('/a.json', { TURNGUARD_STATS_FILE: '/b.json' })).toBe('/a.json');
    expect(resolveStatsFilePath(undefined, { TURNGUARD_STATS_FILE: '/b.json' })).toBe('/b.json');
    expect(resolveStatsFilePath(undefined, {})).toMatch(/\.turnguard[/\\]stats\.json$/);
  });

  it('prints physical and logical tables side by side', async () => {
    await writeRecoveredTurn();
    const result = await runStatsCli(['--file', path], io());
    expect(result.exitCode).toBe(0);
    expect(out).toContain('Physical requests');
    expect(out).toContain('Logical turns');
    expect(out).toMatch(/requests\s+2\s+turns\s+1/);
    expect(out).toMatch(/failed\s+1\s+recovered\s+1/);
    expect(out).toContain('claude-sonnet-4  2 calls, 1 failed');
  });

  it('--json prints the machine-readable summary', async () => {
    await writeRecoveredTurn();
    expect((await runStatsCli(['--json', '--file', path], io())).exitCode).toBe(0);
    const payload = JSON.parse(out);
    expect(payload.state).toBe('ok');
    expect(payload.summary.physical).toMatchObject({ requests: 2, failed: 1 });
    expect(payload.summary.logical).toMatchObject({ turns: 1, recovered: 1, failed: 0 });
  });

  it('says so when there are no stats yet', async () => {
    expect((await runStatsCli(['--file', path], io())).exitCode).toBe(0);
    expect(out).toContain('No stats recorded yet');
    out = '';
    await runStatsCli(['--file', path, '--json'], io());
    expect(JSON.parse(out)).toEqual({ state: 'empty', path });
  });

  it('reports a corrupt file with exit 1 and leaves it where it is (reading never moves files)', async () => {
    await writeFile(path, 'not json');
    expect((await runStatsCli(['--file', path], io())).exitCode).toBe(1);
    expect(err).toContain('STATS_FILE_CORRUPT');
    expect(await readFile(path, 'utf8')).toBe('not json');
  });

  it('rejects unknown commands and bad ports with exit 2', async () => {
    expect((await runStatsCli(['frobnicate'], io())).exitCode).toBe(2);
    expect((await runStatsCli(['serve', '--port', 'abc'], io())).exitCode).toBe(2);
    expect((await runStatsCli(['--nope'], io())).exitCode).toBe(2);
  });

  it('serve on a port already in use exits 2 naming the address and --port', async () => {
    const first = await runStatsCli(['serve', '--port', '0', '--file', path], io());
    const taken = Number(new URL(first.server!.url).port);
    try {
      const second = await runStatsCli(['serve', '--port', String(taken), '--file', path], io());
      expect(second).toEqual({ exitCode: 2 });
      expect(err).toBe(`cannot serve the dashboard on 127.0.0.1:${taken}: the address is already in use (EADDRINUSE). Choose another port with --port <n>; --port 0 takes any free port.\n`);
    } finally {
      await first.server!.close();
    }
  });

  it('serve: a self-contained page on 127.0.0.1 and /api/summary re-read on every request', async () => {
    const result = await runStatsCli(['serve', '--port', '0', '--file', path], io());
    const server = result.server;
    if (!server) throw new Error('serve did not start');
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      const page = await (await fetch(server.url)).text();
      expect(page).not.toMatch(/(src|href)\s*=\s*["']?https?:/i);
      expect(page).toContain("default-src 'none'");
      expect(await (await fetch(`${server.url}api/summary`)).json()).toEqual({ state: 'empty', path });
      await writeRecoveredTurn();
      const live = await (await fetch(`${server.url}api/summary`)).json();
      expect(live.summary.logical.turns).toBe(1);
      await writeFile(path, '{"broken"');
      const broken = await fetch(`${server.url}api/summary`);
      expect(broken.status).toBe(500);
      expect(await broken.json()).toMatchObject({ state: 'error', code: 'STATS_FILE_CORRUPT' });
      expect((await fetch(`${server.url}nope`)).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});
