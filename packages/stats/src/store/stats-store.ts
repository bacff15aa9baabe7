import type { StatsSink, TurnError, TurnRecord } from '@turnguard/core';
import type { StoredSample } from './sample-fields.js';
import { DEFAULT_RETENTION, applyRecords, type PendingRecord, type Retention } from './apply-records.js';
import { pickSampleFields } from './sample-fields.js';
import { createStatsError } from './stats-error.js';
import type { StatsFile } from './stats-file.js';
import { pickTurnFields } from './stored-turn.js';
import { DEFAULT_LOCK_SETTINGS, readStatsFile, updateStatsFile, writeWarningToStderr, type LockSettings, type WarningListener } from './stats-file-io.js';

export interface StatsStoreOptions {
  /** Path of `stats.json`; its directory is created when missing. */
  path: string;
  retention?: Partial<Retention>;
  lock?: Partial<LockSettings>;
  /** Content-free warnings (corrupt file moved aside, failed write…). Default: stderr. */
  onWarning?: WarningListener;
  /** Clock for `updatedAt` and turns without a time; injectable for tests. */
  now?: () => number;
}

export interface StatsStore extends StatsSink {
  /**
   * Queues one physical sample (R6.1). The promise resolves once it is on
   * disk — or once its write failed, which is reported through `onWarning`
   * and by `flush()`: stats never break a turn, so this never rejects.
   */
  recordUsage(sample: StoredSample): Promise<void>;
  /**
   * Queues one logical turn (R6.2) as core reports it; `ok` + `recovered: true`
   * is counted as `recovered`. Same promise rules as `recordUsage`.
   */
  recordTurn(turn: TurnRecord): Promise<void>;
  /** Resolves when everything recorded so far is written; rejects with the first failed write since the last flush. */
  flush(): Promise<void>;
  /** Flushes, then refuses further records. */
  close(): Promise<void>;
  /** The file as it is on disk now (migrated in memory when older). */
  read(): Promise<StatsFile | undefined>;
}

interface QueuedRecord {
  record: PendingRecord;
  settle: () => void;
}

function readPositiveInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (Number.isInteger(value) && value > 0) return value;
  throw createStatsError('STATS_INVALID_OPTIONS', `stats store option ${name} must be a positive integer`, { option: name });
}

/**
 * A `StatsSink` that writes `stats.json` durably (R6.5). Records queued while
 * a write is in flight are coalesced into the next write, so a burst costs
 * one lock + one atomic rename instead of one per record.
 */
export function createStatsStore(options: StatsStoreOptions): StatsStore {
  if (typeof options?.path !== 'string' || options.path.length === 0) {
    throw createStatsError('STATS_INVALID_OPTIONS', 'stats store option path must be a non-empty string', { option: 'path' });
  }
  const path = options.path;
  const retention: Retention = {
    maxSamples: readPositiveInteger(options.retention?.maxSamples, DEFAULT_RETENTION.maxSamples, 'retention.maxSamples'),
    maxTurns: readPositiveInteger(options.retention?.maxTurns, DEFAULT_RETENTION.maxTurns, 'retention.maxTurns'),
  };
  const lock: LockSettings = { ...DEFAULT_LOCK_SETTINGS, ...options.lock };
  if (lock.staleMs < 2000) throw createStatsError('STATS_INVALID_OPTIONS', 'stats store option lock.staleMs must be at least 2000', { option: 'lock.staleMs' });
  const onWarning = options.onWarning ?? writeWarningToStderr;
  const now = options.now ?? Date.now;

  let queue: QueuedRecord[] = [];
  let writing: Promise<void> | undefined;
  let failure: TurnError | undefined;
  let closed = false;

  async function writeQueued(): Promise<void> {
    // Lets every record queued in the same tick join this write.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      try {
        await updateStatsFile(path, lock, now, onWarning, (file) => applyRecords(file, batch.map((queued) => queued.record), retention, now()));
      } catch (error) {
        const turnError = error as TurnError;
        failure ??= turnError;
        onWarning(`could not write ${batch.length} stats record(s) to ${path}: ${turnError.code ?? 'ERROR'}`);
      }
      for (const queued of batch) queued.settle();
    }
  }

  function enqueue(record: PendingRecord): Promise<void> {
    return new Promise<void>((settle) => {
      queue.push({ record, settle });
      startWriting();
    });
  }

  function startWriting(): void {
    if (writing) return;
    writing = writeQueued().finally(() => {
      writing = undefined;
      // A record queued by a callback that ran after the loop's last check.
      if (queue.length > 0) startWriting();
    });
  }

  function assertOpen(): void {
    if (closed) throw createStatsError('STATS_STORE_CLOSED', `stats store for ${path} is closed`);
  }

  async function flush(): Promise<void> {
    while (writing) await writing;
    if (failure) {
      const first = failure;
      failure = undefined;
      throw first;
    }
  }

  return {
    recordUsage(sample) {
      assertOpen();
      return enqueue({ kind: 'usage', sample: pickSampleFields(sample) });
    },
    recordTurn(turn) {
      assertOpen();
      return enqueue({ kind: 'turn', turn: pickTurnFields(turn, now()) });
    },
    flush,
    async close() {
      closed = true;
      await flush();
    },
    async read() {
      const result = await readStatsFile(path, now());
      if (result.status === 'ok') return result.file;
      if (result.status === 'missing') return undefined;
      throw createStatsError(result.code === 'STATS_FILE_NEWER' ? 'STATS_FILE_NEWER' : 'STATS_FILE_CORRUPT', result.message, { path });
    },
  };
}
