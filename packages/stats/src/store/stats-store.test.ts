import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TurnError } from '@turnguard/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StatsSink } from '@turnguard/core';
import { createStatsStore } from './stats-store.js';
import type { StoredTurnOutcome } from './stored-turn.js';
import { createTestSample } from './test-samples.js';
import { makeTurnRecord, makeTurnRecordCountedAs } from './test-turns.js';

let dir: string;
let path: string;
let warnings: string[];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tg-stats-store-'));
  path = join(dir, 'nested', 'stats.json');
  warnings = [];
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function openStore(extra: Partial<Parameters<typeof createStatsStore>[0]> = {}) {
  return createStatsStore({ path, onWarning: (message) => warnings.push(message), ...extra });
}

describe('R6.2 logical turns', () => {
  it('counts each recordTurn exactly once per outcome, also when coalesced into one write', async () => {
    const store = openStore();
    const outcomes: StoredTurnOutcome[] = ['ok', 'ok', 'failed', 'recovered', 'aborted', 'ok', 'recovered'];
    await Promise.all(outcomes.map((outcome, index) => store.recordTurn(makeTurnRecordCountedAs(outcome, { time: 1_000 + index }))));
    await store.recordTurn(makeTurnRecordCountedAs('failed'));
    await store.close();
    const file = await store.read();
    expect(file?.logical).toEqual({ turns: 8, ok: 3, failed: 2, recovered: 2, aborted: 1, estimated: false });
    expect(file?.turns.map((turn) => turn.outcome)).toEqual([...outcomes, 'failed']);
  });

  it('a recovered turn is 2 physical requests (1 failed) but 1 logical turn with 0 failures (R6.1, R6.2)', async () => {
    const store = openStore();
    void store.recordUsage(createTestSample({ ok: false, attempt: 0, recoveryAttempt: false, recoveryScheduled: true, recovered: false, noUsage: true, usage: createTestSample({}).usage }));
    void store.recordUsage(createTestSample({ ok: true, errorCode: undefined, attempt: 1, recoveryAttempt: true, recoveryScheduled: false, recovered: true }));
    void store.recordTurn(makeTurnRecordCountedAs('recovered'));
    await store.close();
    const file = await store.read();
    expect(file?.lifetime.requests).toBe(2);
    expect(file?.lifetime.failedRequests).toBe(1);
    expect(file?.logical).toMatchObject({ turns: 1, failed: 0, recovered: 1 });
  });

  it('accepts core\'s TurnRecord shape: ok + recovered:true counts as recovered, extra fields are not stored', async () => {
    const store = openStore();
    const coreTurn = makeTurnRecord({ time: 5, protocol: 'chat', model: 'm', outcome: 'ok', recovered: true, recoveryId: 'r1', physicalRequests: 2, durationMs: 9, usage: { outputTokens: 3 }, usageComplete: false });
    await store.recordTurn(coreTurn);
    await store.recordTurn({ ...coreTurn, recovered: false });
    await store.close();
    const file = await store.read();
    expect(file?.logical).toMatchObject({ turns: 2, ok: 1, recovered: 1 });
    expect(file?.turns).toEqual([{ time: 5, outcome: 'recovered' }, { time: 5, outcome: 'ok' }]);
  });

  it('rejects a bare `recovered` outcome (not core\'s contract) with a typed error and writes nothing', async () => {
    const store = openStore();
    // @ts-expect-error -- core's TurnOutcome has no 'recovered'; a recovered turn is ok + recovered: true.
    expect(() => store.recordTurn({ ...makeTurnRecord(), outcome: 'recovered' })).toThrowError(expect.objectContaining({ code: 'STATS_INVALID_RECORD' }));
    await store.close();
    expect(await store.read()).toBeUndefined();
  });
});

describe('R6.1/R6.2 core StatsSink contract', () => {
  it('createStatsStore(...) is assignable to core\'s StatsSink and counts records sent through it', async () => {
    // Compile-time proof (tsc -p packages/stats): this line fails to type-check if the store drifts from core's contract.
    const store = createStatsStore({ path }) satisfies StatsSink;
    const sink: StatsSink = store;
    await sink.recordUsage(createTestSample({ ok: true, errorCode: undefined }));
    await sink.recordTurn(makeTurnRecord({ recovered: true, physicalRequests: 2 }));
    await store.close();
    const file = await store.read();
    expect(file?.lifetime.requests).toBe(1);
    expect(file?.logical).toMatchObject({ turns: 1, ok: 0, recovered: 1 });
  });
});

describe('R6.3 retention', () => {
  it('keeps only the newest samples while lifetime totals stay exact', async () => {
    const store = openStore({ retention: { maxSamples: 10, maxTurns: 4 } });
    for (let index = 0; index < 25; index += 1) {
      const ok = index % 5 !== 0;
      const model = index % 2 === 0 ? 'gpt-4.1' : 'o4-mini';
      const usage = { inputTokens: 100, cachedInputTokens: undefined, cacheCreationInputTokens: undefined, outputTokens: index, reasoningTokens: undefined, totalTokens: undefined };
      await store.recordUsage(createTestSample({ time: 1_000 + index, ok, model, usage, noUsage: false }));
      await store.recordTurn(makeTurnRecordCountedAs(ok ? 'ok' : 'failed', { time: 1_000 + index }));
    }
    await store.close();
    const file = await store.read();
    expect(file?.samples.map((sample) => sample.time)).toEqual(Array.from({ length: 10 }, (_, index) => 1_015 + index));
    expect(file?.turns).toHaveLength(4);
    expect(file?.lifetime.requests).toBe(25);
    expect(file?.lifetime.failedRequests).toBe(5);
    expect(file?.lifetime.tokens.inputTokens).toBe(2500);
    expect(file?.lifetime.tokens.outputTokens).toBe(300);
    expect(file?.lifetime.tokens).not.toHaveProperty('reasoningTokens'); // never reported → unknown, not 0
    expect(file?.lifetime.models['gpt-4.1']).toMatchObject({ calls: 13, failedCalls: 3 });
    expect(file?.lifetime.models['o4-mini']).toMatchObject({ calls: 12, failedCalls: 2 });
    expect(file?.logical).toMatchObject({ turns: 25, ok: 20, failed: 5 });
  });
});

describe('R6.5 durability in one process', () => {
  it('coalesces a burst into few writes and loses nothing on close()', async () => {
    const store = openStore();
    for (let index = 0; index < 300; index += 1) void store.recordUsage(createTestSample({ time: index, recoveryId: `r${index}` }));
    await store.close();
    const file = await store.read();
    expect(file?.samples.map((sample) => sample.recoveryId)).toEqual(Array.from({ length: 300 }, (_, index) => `r${index}`));
    expect(file?.updatedAt).toBeGreaterThan(0);
  });

  it('refuses records after close() with a typed error', async () => {
    const store = openStore();
    await store.close();
    expect(() => store.recordTurn(makeTurnRecord())).toThrowError(expect.objectContaining({ code: 'STATS_STORE_CLOSED' }));
  });

  it('moves a corrupt file aside with a warning and never overwrites it', async () => {
    await mkdir(join(dir, 'nested'), { recursive: true });
    const garbage = '{"version":3,"samples":[{"time":';
    await writeFile(path, garbage);
    const store = openStore({ now: () => Date.UTC(2026, 8, 30, 12, 0, 0) });
    await store.recordTurn(makeTurnRecord());
    await store.close();
    const names = await readdir(join(dir, 'nested'));
    const aside = names.find((name) => name.startsWith('stats.json.corrupt-'));
    expect(aside).toBe('stats.json.corrupt-2026-09-30T12-00-00-000Z');
    expect(await readFile(join(dir, 'nested', aside as string), 'utf8')).toBe(garbage);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('moved to');
    expect(warnings[0]).not.toContain(garbage);
    expect((await store.read())?.logical.turns).toBe(1);
  });

  it('treats a well-formed JSON file with a broken shape as corrupt too', async () => {
    await mkdir(join(dir, 'nested'), { recursive: true });
    await writeFile(path, JSON.stringify({ version: 3, lifetime: { requests: -1 } }));
    const store = openStore();
    await store.recordTurn(makeTurnRecord());
    await store.close();
    expect((await readdir(join(dir, 'nested'))).some((name) => name.startsWith('stats.json.corrupt-'))).toBe(true);
  });

  it('does not touch a file written by a newer schema, and flush() reports it', async () => {
    await mkdir(join(dir, 'nested'), { recursive: true });
    const newer = JSON.stringify({ version: 4, anything: true });
    await writeFile(path, newer);
    const store = openStore();
    await store.recordTurn(makeTurnRecord());
    const error = await store.flush().then(() => undefined, (caught: unknown) => caught);
    expect(TurnError.isInstance(error) && error.code).toBe('STATS_FILE_NEWER');
    expect(await readFile(path, 'utf8')).toBe(newer);
    expect(warnings.some((message) => message.includes('could not write 1 stats record'))).toBe(true);
  });

  it('validates options with typed errors', () => {
    expect(() => createStatsStore({ path: '' })).toThrowError(expect.objectContaining({ code: 'STATS_INVALID_OPTIONS' }));
    expect(() => createStatsStore({ path, retention: { maxSamples: 0 } })).toThrowError(expect.objectContaining({ code: 'STATS_INVALID_OPTIONS' }));
    expect(() => createStatsStore({ path, lock: { staleMs: 100 } })).toThrowError(expect.objectContaining({ code: 'STATS_INVALID_OPTIONS' }));
  });
});
