import { USAGE_FIELDS } from '@turnguard/core';
import type { StoredSample } from './sample-fields.js';
import type { RetainedTurn } from './stored-turn.js';
import { createEmptyTokenTotals, type KnownTokenTotals, type LifetimeCounters, type StatsFile } from './stats-file.js';

export interface Retention {
  /** Physical samples kept for speed, TTFT and heatmap queries (R6.3). */
  maxSamples: number;
  /** Logical turns kept for the over-time charts. */
  maxTurns: number;
}

export const DEFAULT_RETENTION: Retention = { maxSamples: 5000, maxTurns: 5000 };

/** A record waiting to be written, in the order it was received. */
export type PendingRecord = { kind: 'usage'; sample: StoredSample } | { kind: 'turn'; turn: RetainedTurn };

function addKnownTokens(totals: KnownTokenTotals, sample: StoredSample): void {
  // Only counts the upstream reported are added; an unknown count is not 0 (R5.2).
  for (const field of USAGE_FIELDS) {
    const count = sample.usage[field];
    if (count !== undefined) totals[field] = (totals[field] ?? 0) + count;
  }
}

/** R6.3: one physical request moves every lifetime counter by exactly its own share. */
export function countSampleInLifetime(lifetime: LifetimeCounters, sample: StoredSample): void {
  lifetime.requests += 1;
  if (!sample.ok) lifetime.failedRequests += 1;
  if (sample.noUsage) lifetime.noUsageRequests += 1;
  addKnownTokens(lifetime.tokens, sample);
  const existing = Object.hasOwn(lifetime.models, sample.model) ? lifetime.models[sample.model] : undefined;
  const model = existing ?? { calls: 0, failedCalls: 0, tokens: createEmptyTokenTotals() };
  model.calls += 1;
  if (!sample.ok) model.failedCalls += 1;
  addKnownTokens(model.tokens, sample);
  lifetime.models[sample.model] = model;
}

/** R6.2: a logical turn moves `turns` and exactly one outcome counter. */
export function countTurn(file: StatsFile, turn: RetainedTurn): void {
  file.logical.turns += 1;
  file.logical[turn.outcome] += 1;
}

/**
 * Applies a batch to the freshly read file. The file is always the one just
 * read under the lock, so records from other processes are never lost.
 */
export function applyRecords(file: StatsFile, records: readonly PendingRecord[], retention: Retention, now: number): StatsFile {
  for (const record of records) {
    if (record.kind === 'usage') {
      countSampleInLifetime(file.lifetime, record.sample);
      file.samples.push(record.sample);
    } else {
      countTurn(file, record.turn);
      file.turns.push(record.turn);
    }
  }
  // Retention trims the oldest samples only; lifetime counters are untouched (R6.3).
  if (file.samples.length > retention.maxSamples) file.samples.splice(0, file.samples.length - retention.maxSamples);
  if (file.turns.length > retention.maxTurns) file.turns.splice(0, file.turns.length - retention.maxTurns);
  file.updatedAt = now;
  return file;
}
