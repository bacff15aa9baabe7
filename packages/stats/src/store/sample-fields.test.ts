import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TurnError } from '@turnguard/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SAMPLE_FIELDS, UNRECOGNIZED_ERROR_CODE, UNRECOGNIZED_MODEL, UNRECOGNIZED_WARNING, pickSampleFields } from './sample-fields.js';
import { createStatsStore } from './stats-store.js';
import { createTestSample } from './test-samples.js';
import { makeTurnRecord } from './test-turns.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tg-stats-fields-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('R6.1 explicit sample field list', () => {
  it('lists exactly the R6.1 fields', () => {
    expect([...SAMPLE_FIELDS].sort()).toEqual(
      ['attempt', 'continuation', 'decodeWindowMs', 'durationMs', 'errorCode', 'fallbackFrom', 'model', 'noResponseHead', 'noUsage', 'ok', 'protocol', 'recovered', 'recoveryAttempt', 'recoveryId', 'recoveryScheduled', 'ttftMs', 'truncated', 'time', 'usage', 'warnings'].sort(),
    );
  });

  it('persists every listed field and reloads it unchanged from disk', async () => {
    const path = join(dir, 'stats.json');
    const sample = { ...createTestSample({ fallbackFrom: 'claude-opus-4', continuation: true }), noResponseHead: true };
    const store = createStatsStore({ path, onWarning: () => undefined });
    await store.recordUsage(sample);
    await store.close();
    const onDisk = JSON.parse(await readFile(path, 'utf8'));
    expect(Object.keys(onDisk.samples[0]).sort()).toEqual([...SAMPLE_FIELDS].sort());
    const reloaded = await createStatsStore({ path }).read();
    expect(reloaded?.samples).toEqual([sample]);
  });

  it('noResponseHead is kept only when true: a sample whose response head came has no such key', async () => {
    const path = join(dir, 'stats.json');
    const store = createStatsStore({ path });
    await store.recordUsage({ ...createTestSample(), noResponseHead: false } as never);
    await store.recordUsage({ ...createTestSample(), noResponseHead: 'yes' } as never);
    await store.close();
    const onDisk = JSON.parse(await readFile(path, 'utf8'));
    expect(onDisk.samples.map((sample: object) => 'noResponseHead' in sample)).toEqual([false, false]);
  });

  it('keeps unknown usage counts unknown (absent), never 0 (R5.1)', async () => {
    const path = join(dir, 'stats.json');
    const store = createStatsStore({ path });
    const usage = { inputTokens: 10, cachedInputTokens: undefined, cacheCreationInputTokens: undefined, outputTokens: undefined, reasoningTokens: undefined, totalTokens: undefined };
    await store.recordUsage(createTestSample({ usage, noUsage: false, errorCode: undefined, recoveryId: undefined, ttftMs: undefined }));
    await store.close();
    const onDisk = JSON.parse(await readFile(path, 'utf8'));
    expect(onDisk.samples[0].usage).toEqual({ inputTokens: 10 });
    expect(onDisk.samples[0]).not.toHaveProperty('errorCode');
    // Only reported counts are summed; a count nobody reported stays absent, not 0 (R5.1).
    expect(onDisk.lifetime.tokens).toEqual({ inputTokens: 10 });
    expect((await createStatsStore({ path }).read())?.samples[0]?.usage).toEqual(usage);
  });

  it('drops a field that is not in the list', async () => {
    const path = join(dir, 'stats.json');
    const store = createStatsStore({ path });
    await store.recordUsage({ ...createTestSample(), futureField: 42, usage: { ...createTestSample().usage, extraCount: 7 } } as never);
    await store.close();
    const text = await readFile(path, 'utf8');
    expect(text).not.toContain('futureField');
    expect(text).not.toContain('extraCount');
  });

  it('R4.10: a marker in every string-ish place a caller can pass never reaches the file', async () => {
    const marker = 'SECRET prompt text ⚑ thinking';
    const path = join(dir, 'stats.json');
    const store = createStatsStore({ path });
    const poisoned = {
      ...createTestSample(),
      model: marker,
      errorCode: marker,
      recoveryId: marker,
      warnings: [marker, `image_unreadable ${marker}`],
      fallbackFrom: marker,
      continuation: marker,
      usage: { inputTokens: marker, outputTokens: 5, [marker]: 1 },
      prompt: marker,
      thinking: marker,
      text: marker,
      toolResult: { output: marker },
      image: { data: marker },
      [marker]: marker,
    };
    await store.recordUsage(poisoned as never);
    await store.recordTurn({ ...makeTurnRecord({ time: Date.UTC(2026, 8, 30), model: marker, errorCode: marker, recoveryId: marker }), note: marker } as never);
    await store.close();
    const text = await readFile(path, 'utf8');
    expect(text).not.toContain('SECRET');
    expect(text).not.toContain('⚑');
    const stored = JSON.parse(text).samples[0];
    expect(stored.model).toBe(UNRECOGNIZED_MODEL);
    expect(stored.errorCode).toBe(UNRECOGNIZED_ERROR_CODE);
    expect(stored.recoveryId).toBeUndefined();
    expect(stored.warnings).toEqual([UNRECOGNIZED_WARNING, UNRECOGNIZED_WARNING]);
    expect(stored.usage).toEqual({ outputTokens: 5 });
    expect(stored.fallbackFrom).toBe(UNRECOGNIZED_MODEL);
    expect(stored).not.toHaveProperty('continuation');
  });

  it('R11.7: the fail-over fields default to absent, so a sample that did not fail over is written as before', async () => {
    const path = join(dir, 'stats.json');
    const store = createStatsStore({ path });
    await store.recordUsage(createTestSample());
    await store.recordUsage(createTestSample({ fallbackFrom: 'claude-opus-4', continuation: false }));
    await store.close();
    const [plain, fallback] = JSON.parse(await readFile(path, 'utf8')).samples;
    expect(plain).not.toHaveProperty('fallbackFrom');
    expect(plain).not.toHaveProperty('continuation');
    expect(fallback).toMatchObject({ fallbackFrom: 'claude-opus-4' });
    expect(fallback).not.toHaveProperty('continuation');
  });

  it('rejects a record that is not a sample with a typed TurnError', () => {
    for (const bad of [null, 'text', [], { ...createTestSample(), ok: 'yes' }, { ...createTestSample(), time: Number.NaN }, { ...createTestSample(), protocol: 'smtp' }]) {
      let caught: unknown;
      try {
        pickSampleFields(bad);
      } catch (error) {
        caught = error;
      }
      expect(TurnError.isInstance(caught)).toBe(true);
      expect((caught as TurnError).code).toBe('STATS_INVALID_RECORD');
    }
  });
});
