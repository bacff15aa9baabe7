import type { StoredSample } from '../store/sample-fields.js';
import type { RetainedTurn } from '../store/stored-turn.js';
import type { KnownTokenTotals, StatsFile } from '../store/stats-file.js';
import { computePercentile, computeRate } from './percentile.js';
import { readDayAndHour } from './local-time.js';
import { buildHourlySeries, type HourlySeries } from './hourly-series.js';
import { summarizeFailures, type FailureSummary } from './summarize-failures.js';
import { summarizeFailover, type FailoverSummary } from './summarize-failover.js';

export interface SummarizeOptions {
  /** Heatmap and day buckets in UTC instead of the machine's local time. */
  utc?: boolean;
}

export interface PercentileSummary {
  count: number;
  p50: number | undefined;
  p90: number | undefined;
  p99: number | undefined;
}

export interface RecoveryDay {
  /** `YYYY-MM-DD`. */
  day: string;
  /** Recovery requests sent that day (second segments). */
  attempts: number;
  /** Of those, the ones that completed the turn. */
  recovered: number;
  rate: number | undefined;
  /** Logical turns that ended that day, and how many failed. */
  turns: number;
  failedTurns: number;
}

export interface StatsSummary {
  version: number;
  updatedAt: number;
  physical: { requests: number; ok: number; failed: number; noUsage: number; successRate: number | undefined; estimated: boolean };
  logical: { turns: number; ok: number; failed: number; recovered: number; aborted: number; successRate: number | undefined; estimated: boolean };
  recovery: { scheduled: number; attempts: number; recovered: number; rate: number | undefined; byDay: RecoveryDay[] };
  tokens: KnownTokenTotals;
  models: Array<{ model: string; calls: number; failedCalls: number; outputTokens: number | undefined }>;
  /** R5.4: tokens/s of successful segments, each from its own window and own known output tokens. */
  decodeSpeed: PercentileSummary & { mean: number | undefined };
  ttftMs: PercentileSummary;
  /** `counts[weekday][hour]`, weekday 0 = Monday; physical requests in the retained window. */
  heatmap: { counts: number[][]; max: number };
  /** Failures in the retained window: by code, by protocol, the latest ones (codes only). */
  failures: FailureSummary;
  /** Requests, turns and failures per hour over the retained window. */
  hourly: HourlySeries;
  /** Fallbacks and continuations in the retained window (R11.7). */
  failover: FailoverSummary;
  window: { samples: number; turns: number; from: number | undefined; to: number | undefined };
}

function summarizePercentiles(values: number[]): PercentileSummary {
  return { count: values.length, p50: computePercentile(values, 50), p90: computePercentile(values, 90), p99: computePercentile(values, 99) };
}

/**
 * R5.4: only successful segments, each with its own decode window and its own
 * known output tokens. A segment missing either is left out, never guessed;
 * two segments are never merged into one rate.
 */
export function collectDecodeSpeeds(samples: readonly StoredSample[]): number[] {
  const speeds: number[] = [];
  for (const sample of samples) {
    const tokens = sample.usage.outputTokens;
    const windowMs = sample.decodeWindowMs;
    if (!sample.ok || tokens === undefined || windowMs === undefined || windowMs <= 0 || tokens === 0) continue;
    speeds.push(tokens / (windowMs / 1000));
  }
  return speeds;
}

function buildHeatmap(samples: readonly StoredSample[], utc: boolean): StatsSummary['heatmap'] {
  const counts = Array.from({ length: 7 }, () => Array.from({ length: 24 }, () => 0));
  let max = 0;
  for (const sample of samples) {
    const { weekday, hour } = readDayAndHour(sample.time, utc);
    const row = counts[weekday] as number[];
    row[hour] = (row[hour] ?? 0) + 1;
    max = Math.max(max, row[hour] ?? 0);
  }
  return { counts, max };
}

function buildRecoveryDays(samples: readonly StoredSample[], turns: readonly RetainedTurn[], utc: boolean): RecoveryDay[] {
  const days = new Map<string, RecoveryDay>();
  const dayOf = (time: number): RecoveryDay => {
    const { day } = readDayAndHour(time, utc);
    let entry = days.get(day);
    if (!entry) {
      entry = { day, attempts: 0, recovered: 0, rate: undefined, turns: 0, failedTurns: 0 };
      days.set(day, entry);
    }
    return entry;
  };
  for (const sample of samples) {
    if (!sample.recoveryAttempt) continue;
    const entry = dayOf(sample.time);
    entry.attempts += 1;
    if (sample.recovered) entry.recovered += 1;
  }
  for (const turn of turns) {
    const entry = dayOf(turn.time);
    entry.turns += 1;
    if (turn.outcome === 'failed') entry.failedTurns += 1;
  }
  const sorted = [...days.values()].sort((a, b) => a.day.localeCompare(b.day));
  for (const entry of sorted) entry.rate = computeRate(entry.recovered, entry.attempts);
  return sorted;
}

/**
 * The figures behind `turnguard stats` and the dashboard. Totals come from
 * lifetime counters (R6.3); speed, TTFT, heatmap and per-day series come
 * from the retained window.
 */
export function summarizeStats(file: StatsFile, options: SummarizeOptions = {}): StatsSummary {
  const utc = options.utc ?? false;
  const { lifetime, logical, samples, turns } = file;
  const recoverySamples = samples.filter((sample) => sample.recoveryAttempt);
  const recoveredSegments = recoverySamples.filter((sample) => sample.recovered).length;
  const speeds = collectDecodeSpeeds(samples);
  const ttfts = samples.flatMap((sample) => (sample.ttftMs !== undefined ? [sample.ttftMs] : []));
  const times = samples.map((sample) => sample.time);
  return {
    version: file.version,
    updatedAt: file.updatedAt,
    physical: {
      requests: lifetime.requests,
      ok: lifetime.requests - lifetime.failedRequests,
      failed: lifetime.failedRequests,
      noUsage: lifetime.noUsageRequests,
      successRate: computeRate(lifetime.requests - lifetime.failedRequests, lifetime.requests),
      estimated: lifetime.estimated,
    },
    logical: {
      turns: logical.turns,
      ok: logical.ok,
      failed: logical.failed,
      recovered: logical.recovered,
      aborted: logical.aborted,
      successRate: computeRate(logical.ok + logical.recovered, logical.turns),
      estimated: logical.estimated,
    },
    recovery: {
      scheduled: samples.filter((sample) => sample.recoveryScheduled).length,
      attempts: recoverySamples.length,
      recovered: recoveredSegments,
      rate: computeRate(recoveredSegments, recoverySamples.length),
      byDay: buildRecoveryDays(samples, turns, utc),
    },
    tokens: { ...lifetime.tokens },
    models: Object.entries(lifetime.models)
      .map(([model, counters]) => ({ model, calls: counters.calls, failedCalls: counters.failedCalls, outputTokens: counters.tokens.outputTokens }))
      .sort((a, b) => b.calls - a.calls || a.model.localeCompare(b.model)),
    decodeSpeed: { ...summarizePercentiles(speeds), mean: speeds.length === 0 ? undefined : speeds.reduce((sum, speed) => sum + speed, 0) / speeds.length },
    ttftMs: summarizePercentiles(ttfts),
    heatmap: buildHeatmap(samples, utc),
    failures: summarizeFailures(samples, utc),
    hourly: buildHourlySeries(samples, turns, utc),
    failover: summarizeFailover(samples),
    window: {
      samples: samples.length,
      turns: turns.length,
      from: times.length === 0 ? undefined : Math.min(...times),
      to: times.length === 0 ? undefined : Math.max(...times),
    },
  };
}
