import { mkdir, readFile, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import { TurnError } from '@turnguard/core';
import lockfile from 'proper-lockfile';
import writeFileAtomic from 'write-file-atomic';
import { parseStatsFile } from './migrate-stats-file.js';
import { createStatsError } from './stats-error.js';
import { createEmptyStatsFile, type StatsFile } from './stats-file.js';

export interface LockSettings {
  /** A lock older than this is stale and taken over (proper-lockfile minimum 2000). */
  staleMs: number;
  /** How long a writer keeps retrying a held lock before the write fails. */
  retries: number;
  minRetryMs: number;
  maxRetryMs: number;
}

export const DEFAULT_LOCK_SETTINGS: LockSettings = { staleMs: 10_000, retries: 400, minRetryMs: 5, maxRetryMs: 250 };

export type WarningListener = (message: string) => void;

/** The default listener: one line on stderr. Messages never hold record content (R4.10). */
export function writeWarningToStderr(message: string): void {
  process.stderr.write(`[turnguard/stats] ${message}\n`);
}

function formatCorruptSuffix(now: number): string {
  return new Date(now).toISOString().replace(/[:.]/g, '-');
}

/**
 * R6.5: a corrupt file is renamed aside, never overwritten, and reported.
 * Called only while holding the lock, so no other writer races the rename.
 */
async function moveCorruptFileAside(path: string, now: number, reason: string, onWarning: WarningListener): Promise<string> {
  const aside = `${path}.corrupt-${formatCorruptSuffix(now)}`;
  await rename(path, aside);
  onWarning(`stats file ${path} could not be read (${reason}); it was moved to ${aside} and a new file was started`);
  return aside;
}

/**
 * Reads the current file for an update: a missing file starts empty, an old
 * version is migrated, a corrupt one is moved aside. A file from a newer
 * schema is refused (STATS_FILE_NEWER) so it is not downgraded.
 */
async function loadStatsFileForUpdate(path: string, now: number, onWarning: WarningListener): Promise<StatsFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return createEmptyStatsFile(now);
    throw error;
  }
  try {
    const parsed = parseStatsFile(text, now);
    if (parsed.migratedFrom !== undefined) {
      onWarning(`stats file ${path} was migrated from schema v${parsed.migratedFrom} to v3; earlier logical counts are an estimated baseline`);
    }
    return parsed.file;
  } catch (error) {
    if (TurnError.isInstance(error) && error.code === 'STATS_FILE_CORRUPT') {
      await moveCorruptFileAside(path, now, error.message, onWarning);
      return createEmptyStatsFile(now);
    }
    throw error;
  }
}

/**
 * R6.5: one locked read-modify-write. lock (stale locks are taken over) →
 * read the current file → apply → atomic write (temp file, fsync, rename)
 * → unlock. A crash at any point leaves either the old or the new file.
 */
export async function updateStatsFile(
  path: string,
  lock: LockSettings,
  now: () => number,
  onWarning: WarningListener,
  apply: (file: StatsFile) => StatsFile,
): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  let compromised: Error | undefined;
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(path, {
      realpath: false,
      lockfilePath: `${path}.lock`,
      stale: lock.staleMs,
      retries: { retries: lock.retries, factor: 1.3, minTimeout: lock.minRetryMs, maxTimeout: lock.maxRetryMs, randomize: true },
      // The default throws from a timer and would crash the host process.
      onCompromised: (error) => {
        compromised = error;
      },
    });
  } catch (error) {
    throw createStatsError('STATS_WRITE_FAILED', `could not lock stats file ${path}`, { path }, error);
  }
  try {
    const updated = apply(await loadStatsFileForUpdate(path, now(), onWarning));
    if (compromised) throw createStatsError('STATS_WRITE_FAILED', `lock on stats file ${path} was lost before writing`, { path }, compromised);
    await writeFileAtomic(path, `${JSON.stringify(updated)}\n`, { fsync: true });
  } finally {
    await release().catch(() => undefined);
  }
}

export type ReadStatsResult =
  | { status: 'missing'; path: string }
  | { status: 'ok'; path: string; file: StatsFile; migratedFrom?: 1 | 2 }
  | { status: 'error'; path: string; code: string; message: string };

/**
 * Read-only access for the CLI and dashboard: no lock is needed because
 * writes replace the file by rename, so a reader sees a whole old or new
 * file. Nothing is moved or migrated on disk here.
 */
export async function readStatsFile(path: string, now: number = Date.now()): Promise<ReadStatsResult> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { status: 'missing', path };
    return { status: 'error', path, code: code ?? 'STATS_READ_FAILED', message: `could not read stats file ${path}` };
  }
  try {
    const parsed = parseStatsFile(text, now);
    return parsed.migratedFrom === undefined ? { status: 'ok', path, file: parsed.file } : { status: 'ok', path, file: parsed.file, migratedFrom: parsed.migratedFrom };
  } catch (error) {
    if (TurnError.isInstance(error)) return { status: 'error', path, code: error.code, message: error.message };
    throw error;
  }
}
