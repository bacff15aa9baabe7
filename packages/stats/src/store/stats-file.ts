import { USAGE_FIELDS, type UsageField } from '@turnguard/core';
import { pickSampleFields, type StoredSample } from './sample-fields.js';
import { readRetainedTurn, type RetainedTurn } from './stored-turn.js';
import { createStatsError } from './stats-error.js';

/** The schema version this package writes. Older files are migrated (R6.4). */
export const STATS_SCHEMA_VERSION = 3;

/** Sums of counts the upstream actually reported; unknown counts add nothing (R5.2). */
/**
 * Lifetime sums of the counts upstream actually reported. A field no sample
 * ever reported is absent — unknown, never 0 (R5.1, R5.2).
 */
export type KnownTokenTotals = Partial<Record<UsageField, number>>;

export interface ModelCounters {
  calls: number;
  failedCalls: number;
  tokens: KnownTokenTotals;
}

/** R6.3: lifetime totals, independent of how many samples are retained. */
export interface LifetimeCounters {
  requests: number;
  failedRequests: number;
  /** Requests whose upstream reported no usage at all. */
  noUsageRequests: number;
  tokens: KnownTokenTotals;
  models: Record<string, ModelCounters>;
  /** True when a migration had to rebuild these from retained samples (R6.4). */
  estimated: boolean;
}

export interface LogicalBaseline {
  migratedFrom: number;
  migratedAt: number;
  turns: number;
  ok: number;
  failed: number;
  recovered: number;
  aborted: number;
}

/** R6.2: logical turn counters; `turns` = ok + failed + recovered + aborted. */
export interface LogicalCounters {
  turns: number;
  ok: number;
  failed: number;
  recovered: number;
  aborted: number;
  /** True when part of these counts is a baseline estimated by a migration (R6.4). */
  estimated: boolean;
  baseline?: LogicalBaseline;
}

export interface StatsFile {
  version: typeof STATS_SCHEMA_VERSION;
  createdAt: number;
  updatedAt: number;
  lifetime: LifetimeCounters;
  logical: LogicalCounters;
  /** Retained physical samples, oldest first (R6.1, R6.3). */
  samples: StoredSample[];
  /** Retained logical turns, oldest first. */
  turns: RetainedTurn[];
}

export function createEmptyTokenTotals(): KnownTokenTotals {
  return {};
}

export function createEmptyStatsFile(now: number): StatsFile {
  return {
    version: STATS_SCHEMA_VERSION,
    createdAt: now,
    updatedAt: now,
    lifetime: { requests: 0, failedRequests: 0, noUsageRequests: 0, tokens: createEmptyTokenTotals(), models: {}, estimated: false },
    logical: { turns: 0, ok: 0, failed: 0, recovered: 0, aborted: 0, estimated: false },
    samples: [],
    turns: [],
  };
}

function fail(reason: string): never {
  throw createStatsError('STATS_FILE_CORRUPT', `stats file is not valid: ${reason}`, { reason });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readCounter(source: Record<string, unknown>, key: string, where: string): number {
  const value = source[key];
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  return fail(`${where}.${key} must be a non-negative integer`);
}

export function readTokenTotals(value: unknown, where: string): KnownTokenTotals {
  if (!isRecord(value)) return fail(`${where} must be an object`);
  const totals = createEmptyTokenTotals();
  for (const field of USAGE_FIELDS) {
    if (value[field] !== undefined) totals[field] = readCounter(value, field, where);
  }
  return totals;
}

function readModels(value: unknown): Record<string, ModelCounters> {
  if (!isRecord(value)) return fail('lifetime.models must be an object');
  const models: Record<string, ModelCounters> = Object.create(null) as Record<string, ModelCounters>;
  for (const [model, counters] of Object.entries(value)) {
    if (!isRecord(counters)) return fail('lifetime.models entry must be an object');
    models[model] = {
      calls: readCounter(counters, 'calls', 'model'),
      failedCalls: counters['failedCalls'] === undefined ? 0 : readCounter(counters, 'failedCalls', 'model'),
      tokens: counters['tokens'] === undefined ? createEmptyTokenTotals() : readTokenTotals(counters['tokens'], 'model.tokens'),
    };
  }
  return models;
}

function readLogical(value: unknown): LogicalCounters {
  if (!isRecord(value)) return fail('logical must be an object');
  const logical: LogicalCounters = {
    turns: readCounter(value, 'turns', 'logical'),
    ok: readCounter(value, 'ok', 'logical'),
    failed: readCounter(value, 'failed', 'logical'),
    recovered: readCounter(value, 'recovered', 'logical'),
    aborted: readCounter(value, 'aborted', 'logical'),
    estimated: value['estimated'] === true,
  };
  const baseline = value['baseline'];
  if (isRecord(baseline)) {
    logical.baseline = {
      migratedFrom: readCounter(baseline, 'migratedFrom', 'logical.baseline'),
      migratedAt: readCounter(baseline, 'migratedAt', 'logical.baseline'),
      turns: readCounter(baseline, 'turns', 'logical.baseline'),
      ok: readCounter(baseline, 'ok', 'logical.baseline'),
      failed: readCounter(baseline, 'failed', 'logical.baseline'),
      recovered: readCounter(baseline, 'recovered', 'logical.baseline'),
      aborted: readCounter(baseline, 'aborted', 'logical.baseline'),
    };
  }
  return logical;
}

/** Re-reads retained samples through the R6.1 field list; a bad one makes the file corrupt. */
export function readSamples(value: unknown): StoredSample[] {
  if (!Array.isArray(value)) return fail('samples must be an array');
  try {
    return value.map((sample) => pickSampleFields(sample));
  } catch {
    return fail('a retained sample is malformed');
  }
}

/** Validates a parsed version-3 document; throws STATS_FILE_CORRUPT otherwise. */
export function readStatsFileV3(value: Record<string, unknown>): StatsFile {
  const lifetime = value['lifetime'];
  if (!isRecord(lifetime)) return fail('lifetime must be an object');
  if (!Array.isArray(value['turns'])) return fail('turns must be an array');
  let turns: RetainedTurn[];
  try {
    turns = value['turns'].map((turn) => readRetainedTurn(turn));
  } catch {
    return fail('a retained turn is malformed');
  }
  return {
    version: STATS_SCHEMA_VERSION,
    createdAt: readCounter(value, 'createdAt', 'file'),
    updatedAt: readCounter(value, 'updatedAt', 'file'),
    lifetime: {
      requests: readCounter(lifetime, 'requests', 'lifetime'),
      failedRequests: readCounter(lifetime, 'failedRequests', 'lifetime'),
      noUsageRequests: readCounter(lifetime, 'noUsageRequests', 'lifetime'),
      tokens: readTokenTotals(lifetime['tokens'], 'lifetime.tokens'),
      models: readModels(lifetime['models']),
      estimated: lifetime['estimated'] === true,
    },
    logical: readLogical(value['logical']),
    samples: readSamples(value['samples']),
    turns,
  };
}

export { isRecord };
