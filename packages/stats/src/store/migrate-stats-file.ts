import type { UsageSample } from '@turnguard/core';
import { countSampleInLifetime } from './apply-records.js';
import { pickSampleFields, readUsage } from './sample-fields.js';
import type { StoredTurnOutcome } from './stored-turn.js';
import { createStatsError } from './stats-error.js';
import {
  STATS_SCHEMA_VERSION,
  createEmptyStatsFile,
  isRecord,
  readStatsFileV3,
  readTokenTotals,
  type LogicalBaseline,
  type StatsFile,
} from './stats-file.js';

/*
 * R6.4 migration. Earlier layouts:
 *   v1 — `{ version?: 1, samples: [...] }`: physical samples only, no counters;
 *   v2 — `{ version: 2, samples, lifetime: { requests, failedRequests, tokens, models: { m: { calls } } } }`,
 *        no logical counters.
 * Turn boundaries cannot be rebuilt reliably from physical samples, so the
 * logical baseline is estimated from the retained samples and flagged
 * `estimated`; every record after the upgrade is counted exactly.
 */

export interface ParsedStatsFile {
  file: StatsFile;
  /** The version the document had on disk, when it was older than 3. */
  migratedFrom?: 1 | 2;
}

/** A v1 sample had no `noUsage`: it had no usage when no count was known. */
function readLegacySample(raw: unknown): UsageSample {
  const sample = pickSampleFields(raw);
  if (isRecord(raw) && raw['noUsage'] === undefined) {
    const usage = readUsage(raw['usage']);
    sample.noUsage = Object.values(usage).every((count) => count === undefined);
  }
  return sample;
}

function classifyEstimatedTurn(segments: UsageSample[]): StoredTurnOutcome {
  const last = segments[segments.length - 1] as UsageSample;
  if (segments.some((segment) => segment.recovered)) return 'recovered';
  if (last.errorCode === 'ABORTED') return 'aborted';
  if (segments.length > 1 && last.ok) return 'recovered';
  return last.ok ? 'ok' : 'failed';
}

/** Samples sharing a `recoveryId` are one turn; every other sample is its own turn. */
export function estimateLogicalBaseline(samples: UsageSample[], migratedFrom: 1 | 2, now: number): LogicalBaseline {
  const baseline: LogicalBaseline = { migratedFrom, migratedAt: now, turns: 0, ok: 0, failed: 0, recovered: 0, aborted: 0 };
  const groups = new Map<string, UsageSample[]>();
  const turns: UsageSample[][] = [];
  for (const sample of samples) {
    if (sample.recoveryId === undefined) {
      turns.push([sample]);
      continue;
    }
    const group = groups.get(sample.recoveryId);
    if (group) group.push(sample);
    else {
      const created = [sample];
      groups.set(sample.recoveryId, created);
      turns.push(created);
    }
  }
  for (const segments of turns) {
    baseline.turns += 1;
    baseline[classifyEstimatedTurn(segments)] += 1;
  }
  return baseline;
}

function migrateLegacy(document: Record<string, unknown>, version: 1 | 2, now: number): StatsFile {
  if (!Array.isArray(document['samples'])) throw createStatsError('STATS_FILE_CORRUPT', 'stats file is not valid: samples must be an array');
  let samples: UsageSample[];
  try {
    samples = document['samples'].map(readLegacySample);
  } catch {
    throw createStatsError('STATS_FILE_CORRUPT', 'stats file is not valid: a retained sample is malformed');
  }
  const file = createEmptyStatsFile(now);
  file.samples = samples;
  // Counters a layout never kept are rebuilt from the retained samples: estimated.
  for (const sample of samples) countSampleInLifetime(file.lifetime, sample);
  file.lifetime.estimated = true;
  const oldLifetime = document['lifetime'];
  if (version === 2 && isRecord(oldLifetime)) {
    const requests = oldLifetime['requests'];
    const failed = oldLifetime['failedRequests'];
    if (typeof requests === 'number' && Number.isInteger(requests) && requests >= 0) file.lifetime.requests = requests;
    if (typeof failed === 'number' && Number.isInteger(failed) && failed >= 0) file.lifetime.failedRequests = failed;
    if (oldLifetime['tokens'] !== undefined) file.lifetime.tokens = readTokenTotals(oldLifetime['tokens'], 'lifetime.tokens');
    if (isRecord(oldLifetime['models'])) {
      for (const [model, counters] of Object.entries(oldLifetime['models'])) {
        const calls = isRecord(counters) ? counters['calls'] : undefined;
        if (typeof calls !== 'number' || !Number.isInteger(calls) || calls < 0) continue;
        const rebuilt = Object.hasOwn(file.lifetime.models, model) ? file.lifetime.models[model] : undefined;
        file.lifetime.models[model] = { calls, failedCalls: rebuilt?.failedCalls ?? 0, tokens: rebuilt?.tokens ?? readTokenTotals({}, 'model.tokens') };
      }
    }
  }
  const baseline = estimateLogicalBaseline(samples, version, now);
  file.logical = { turns: baseline.turns, ok: baseline.ok, failed: baseline.failed, recovered: baseline.recovered, aborted: baseline.aborted, estimated: true, baseline };
  return file;
}

/**
 * Parses the text of a stats file of any known version. Throws
 * STATS_FILE_CORRUPT for unreadable content and STATS_FILE_NEWER for a file
 * written by a newer version (which must not be overwritten either).
 */
export function parseStatsFile(text: string, now: number): ParsedStatsFile {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw createStatsError('STATS_FILE_CORRUPT', 'stats file is not valid JSON');
  }
  if (!isRecord(document)) throw createStatsError('STATS_FILE_CORRUPT', 'stats file is not valid: the top level must be an object');
  const version = document['version'] ?? 1;
  if (version === STATS_SCHEMA_VERSION) return { file: readStatsFileV3(document) };
  if (version === 1 || version === 2) return { file: migrateLegacy(document, version, now), migratedFrom: version };
  if (typeof version === 'number' && Number.isInteger(version) && version > STATS_SCHEMA_VERSION) {
    throw createStatsError('STATS_FILE_NEWER', `stats file has schema version ${version}; this version of @turnguard/stats writes ${STATS_SCHEMA_VERSION}`, { version });
  }
  throw createStatsError('STATS_FILE_CORRUPT', 'stats file is not valid: unknown schema version');
}
