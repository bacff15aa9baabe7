import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseStatsFile } from './migrate-stats-file.js';
import { createStatsStore } from './stats-store.js';
import { createTestSample } from './test-samples.js';
import { makeTurnRecordCountedAs } from './test-turns.js';

const FIXTURES = new URL('../../test/fixtures/', import.meta.url);
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tg-stats-migrate-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function readFixture(name: string): Promise<string> {
  return readFile(new URL(name, FIXTURES), 'utf8');
}

describe('R6.4 migration of old files', () => {
  it('v1 (samples only): rebuilds lifetime and an estimated logical baseline from the samples', async () => {
    const { file, migratedFrom } = parseStatsFile(await readFixture('stats-v1.json'), 5_000);
    expect(migratedFrom).toBe(1);
    expect(file.version).toBe(3);
    expect(file.samples).toHaveLength(4);
    expect(file.samples[0]?.time).toBe(Date.parse('2026-09-28T09:15:00.000Z'));
    expect(file.samples.map((sample) => sample.noUsage)).toEqual([false, true, false, true]);
    expect(file.lifetime).toMatchObject({ requests: 4, failedRequests: 2, noUsageRequests: 2, estimated: true });
    expect(file.lifetime.tokens).toEqual({ inputTokens: 3000, outputTokens: 1020, totalTokens: 1140 }); // reasoning never reported → absent
    expect(file.logical).toEqual({
      turns: 4, ok: 2, failed: 1, recovered: 0, aborted: 1, estimated: true,
      baseline: { migratedFrom: 1, migratedAt: 5_000, turns: 4, ok: 2, failed: 1, recovered: 0, aborted: 1 },
    });
  });

  it('v2 (lifetime without logical): keeps exact lifetime totals, groups samples by recoveryId for the baseline', async () => {
    const { file, migratedFrom } = parseStatsFile(await readFixture('stats-v2.json'), 5_000);
    expect(migratedFrom).toBe(2);
    expect(file.lifetime).toMatchObject({ requests: 120, failedRequests: 9, estimated: true });
    expect(file.lifetime.tokens).toMatchObject({ inputTokens: 98_000, outputTokens: 31_000, reasoningTokens: 12_000, totalTokens: 129_000 });
    expect(file.lifetime.tokens).not.toHaveProperty('cachedInputTokens'); // the v2 file never had it: unknown, not 0
    expect(file.lifetime.models['deepseek-reasoner']?.calls).toBe(70);
    expect(file.lifetime.models['gpt-4.1']?.calls).toBe(50);
    // rec-1: cut then recovered; gpt-4.1: ok; rec-2: cut, recovery cut again.
    expect(file.logical).toMatchObject({ turns: 3, ok: 1, recovered: 1, failed: 1, aborted: 0, estimated: true });
  });

  it.each(['stats-v1.json', 'stats-v2.json'])('%s: records after the upgrade are added exactly and the file is rewritten as v3', async (name) => {
    const path = join(dir, 'stats.json');
    await copyFile(new URL(name, FIXTURES), path);
    const before = parseStatsFile(await readFile(path, 'utf8'), 0).file;
    const warnings: string[] = [];
    const store = createStatsStore({ path, onWarning: (message) => warnings.push(message) });
    await store.recordUsage(createTestSample({ ok: true, errorCode: undefined, model: 'gpt-4.1' }));
    await store.recordTurn(makeTurnRecordCountedAs('recovered'));
    await store.recordTurn(makeTurnRecordCountedAs('aborted'));
    await store.close();
    const after = JSON.parse(await readFile(path, 'utf8'));
    expect(after.version).toBe(3);
    expect(after.lifetime.requests).toBe(before.lifetime.requests + 1);
    expect(after.lifetime.failedRequests).toBe(before.lifetime.failedRequests);
    expect(after.lifetime.tokens.outputTokens).toBe((before.lifetime.tokens.outputTokens ?? 0) + 4100);
    expect(after.logical.turns).toBe(before.logical.turns + 2);
    expect(after.logical.recovered).toBe(before.logical.recovered + 1);
    expect(after.logical.aborted).toBe(before.logical.aborted + 1);
    expect(after.logical.estimated).toBe(true);
    expect(after.logical.baseline.turns).toBe(before.logical.turns);
    expect(warnings).toEqual([expect.stringContaining('migrated from schema v')]);
  });

  it('rejects unknown versions and non-objects as corrupt', () => {
    expect(() => parseStatsFile('[]', 0)).toThrowError(expect.objectContaining({ code: 'STATS_FILE_CORRUPT' }));
    expect(() => parseStatsFile('{"version":"x"}', 0)).toThrowError(expect.objectContaining({ code: 'STATS_FILE_CORRUPT' }));
    expect(() => parseStatsFile('{"version":9}', 0)).toThrowError(expect.objectContaining({ code: 'STATS_FILE_NEWER' }));
  });
});
