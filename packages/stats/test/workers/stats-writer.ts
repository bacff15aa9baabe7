/*
 * Test-only child process: writes records into one stats.json through the
 * real store (lock + atomic write). Bundled to CommonJS by
 * build-test-worker.ts, because Node 20 cannot run TypeScript directly.
 *
 *   stats-writer <path> <workerId> <count> [maxSamples]   write <count> samples + turns, close, exit 0
 *   stats-writer <path> <workerId> forever   keep writing; print "written <n>" after each flush
 */
import { createStatsStore } from '../../src/store/stats-store.js';
import type { StoredTurnOutcome } from '../../src/store/stored-turn.js';
import { makeTurnRecordCountedAs } from '../../src/store/test-turns.js';

const OUTCOMES: StoredTurnOutcome[] = ['ok', 'failed', 'recovered', 'aborted'];

function createSample(workerId: string, index: number) {
  return {
    time: Date.UTC(2026, 8, 28) + index * 60_000,
    protocol: 'chat' as const,
    model: `model-${workerId}`,
    ok: index % 7 !== 0,
    errorCode: index % 7 === 0 ? 'STREAM_CUT' : undefined,
    truncated: index % 7 === 0,
    durationMs: 1000 + index,
    ttftMs: 200 + (index % 50),
    decodeWindowMs: 800,
    usage: { inputTokens: 10, cachedInputTokens: undefined, cacheCreationInputTokens: undefined, outputTokens: 3, reasoningTokens: undefined, totalTokens: 13 },
    noUsage: false,
    recoveryId: `w${workerId}-${index}`,
    attempt: 0 as const,
    recoveryAttempt: false,
    recoveryScheduled: false,
    recovered: false,
    warnings: [],
  };
}

async function writeCount(path: string, workerId: string, count: number, maxSamples: number): Promise<void> {
  const store = createStatsStore({ path, retention: { maxSamples, maxTurns: maxSamples }, lock: { retries: 2000, maxRetryMs: 100 } });
  for (let index = 0; index < count; index += 1) {
    void store.recordUsage(createSample(workerId, index));
    void store.recordTurn(makeTurnRecordCountedAs(OUTCOMES[index % 4] as StoredTurnOutcome, { time: Date.UTC(2026, 8, 28) + index }));
    // Yield now and then so writes interleave with the other processes.
    if (index % 10 === 9) await new Promise((resolve) => setImmediate(resolve));
  }
  await store.close();
}

async function writeForever(path: string, workerId: string): Promise<never> {
  const store = createStatsStore({ path, retention: { maxSamples: 5000 }, lock: { staleMs: 2000 } });
  for (let index = 0; ; index += 1) {
    for (let burst = 0; burst < 200; burst += 1) void store.recordUsage(createSample(workerId, index * 200 + burst));
    await store.flush();
    process.stdout.write(`written ${(index + 1) * 200}\n`);
  }
}

const [path, workerId, countArg, maxSamplesArg] = process.argv.slice(2);
if (!path || !workerId || !countArg) {
  process.stderr.write('usage: stats-writer <path> <workerId> <count|forever>\n');
  process.exit(2);
}
const run = countArg === 'forever' ? writeForever(path, workerId) : writeCount(path, workerId, Number(countArg), Number(maxSamplesArg ?? 100_000));
run.then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  },
);
