import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseStatsFile } from '../src/store/migrate-stats-file.js';
import { createStatsStore } from '../src/store/stats-store.js';
import { makeTurnRecord } from '../src/store/test-turns.js';
import { buildTestWorker } from './build-test-worker.js';

/*
 * R6.5 across real processes: several writers on one stats.json, and a
 * writer killed with SIGKILL in the middle of its writes.
 */
let workerPath: string;
let dir: string;
beforeAll(async () => {
  workerPath = await buildTestWorker();
  dir = await mkdtemp(join(tmpdir(), 'tg-stats-procs-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(dirname(workerPath), { recursive: true, force: true });
});

function runWriter(path: string, workerId: string, count: number): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [workerPath, path, workerId, String(count)], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

/** Resolves once the child reported at least `minWritten` records on disk. */
function waitForWrites(child: ChildProcess, minWritten: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const matches = [...buffered.matchAll(/written (\d+)/g)];
      const last = Number(matches[matches.length - 1]?.[1] ?? 0);
      if (last >= minWritten) resolve(last);
    });
    child.on('exit', (code) => reject(new Error(`writer exited early with ${code}`)));
  });
}

describe('R6.5 several processes', () => {
  it('8 processes x 500 concurrent records lose nothing (exact counts)', async () => {
    const path = join(dir, 'shared', 'stats.json');
    const workers = Array.from({ length: 8 }, (_, index) => String(index + 1));
    const results = await Promise.all(workers.map((workerId) => runWriter(path, workerId, 500)));
    expect(results.map((result) => result.code)).toEqual(workers.map(() => 0));
    const { file } = parseStatsFile(await readFile(path, 'utf8'), Date.now());
    expect(file.lifetime.requests).toBe(4000);
    // index % 7 === 0 fails: 72 of 0..499 per worker.
    expect(file.lifetime.failedRequests).toBe(8 * 72);
    expect(file.lifetime.tokens.inputTokens).toBe(40_000);
    expect(file.logical).toMatchObject({ turns: 4000, ok: 1000, failed: 1000, recovered: 1000, aborted: 1000 });
    for (const workerId of workers) expect(file.lifetime.models[`model-${workerId}`]?.calls).toBe(500);
    const ids = new Set(file.samples.map((sample) => sample.recoveryId));
    expect(ids.size).toBe(4000);
    for (const workerId of workers) for (let index = 0; index < 500; index += 1) expect(ids.has(`w${workerId}-${index}`)).toBe(true);
    expect(await readdir(dirname(path))).toEqual(['stats.json']);
  }, 60_000);

  it('a writer killed with SIGKILL mid-write leaves a valid file every time', async () => {
    const path = join(dir, 'killed', 'stats.json');
    let acknowledged = 0;
    for (let round = 0; round < 3; round += 1) {
      const child = spawn(process.execPath, [workerPath, path, `k${round}`, 'forever'], { stdio: ['ignore', 'pipe', 'inherit'] });
      acknowledged += await waitForWrites(child, 1000);
      // The file is ~1 MB by now, so each locked write takes a while; a short,
      // varying delay lands the kill inside the lock / temp-file write.
      await new Promise((resolve) => setTimeout(resolve, 4 + round * 12));
      const exited = new Promise((resolve) => child.on('exit', resolve));
      child.kill('SIGKILL');
      await exited;
      const { file } = parseStatsFile(await readFile(path, 'utf8'), Date.now());
      expect(file.lifetime.requests).toBeGreaterThanOrEqual(acknowledged);
      acknowledged = file.lifetime.requests;
    }
    // Whoever comes next may find the killed writer's lock: it is taken over once stale.
    const store = createStatsStore({ path, lock: { staleMs: 2000 }, onWarning: () => undefined });
    await store.recordTurn(makeTurnRecord());
    await store.close();
    const { file } = parseStatsFile(await readFile(path, 'utf8'), Date.now());
    expect(file.lifetime.requests).toBe(acknowledged);
    expect(file.logical.turns).toBe(1);
  }, 60_000);

  it('takes over a stale lock left by a dead writer, but waits for a live one', async () => {
    const path = join(dir, 'stale', 'stats.json');
    await mkdir(`${path}.lock`, { recursive: true });
    const past = new Date(Date.now() - 60_000);
    await utimes(`${path}.lock`, past, past);
    const store = createStatsStore({ path, lock: { staleMs: 2000 }, onWarning: () => undefined });
    await store.recordTurn(makeTurnRecord());
    await store.flush();
    expect((await store.read())?.logical.turns).toBe(1);

    // A fresh lock (a live writer) is respected: with no retries the write fails and is reported.
    await mkdir(`${path}.lock`);
    const warnings: string[] = [];
    const impatient = createStatsStore({ path, lock: { staleMs: 60_000, retries: 0 }, onWarning: (message) => warnings.push(message) });
    await impatient.recordTurn(makeTurnRecord());
    await expect(impatient.flush()).rejects.toMatchObject({ code: 'STATS_WRITE_FAILED' });
    expect(warnings).toEqual([expect.stringContaining('could not write 1 stats record')]);
    expect((await store.read())?.logical.turns).toBe(1);
    await rm(`${path}.lock`, { recursive: true });
  });
});
