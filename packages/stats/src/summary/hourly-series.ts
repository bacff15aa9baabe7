import type { StoredSample } from '../store/sample-fields.js';
import type { RetainedTurn } from '../store/stored-turn.js';
import { readDayAndHour } from './local-time.js';

const HOUR_MS = 3_600_000;
/** At most a week of hours: beyond that the bars are narrower than a pixel. */
export const MAX_HOURS = 168;

export interface HourBucket {
  /** Epoch ms of the hour's start (UTC or local, as the summary was asked). */
  start: number;
  /** `YYYY-MM-DD HH:00`. */
  label: string;
  requests: number;
  failedRequests: number;
  turns: number;
  failedTurns: number;
}

export interface HourlySeries {
  /** Every hour from the window's first record to its last, empty hours included. */
  hours: HourBucket[];
  /** True when the retained window is longer than `MAX_HOURS` and only its last hours are shown. */
  truncated: boolean;
}

function startOfHour(time: number, utc: boolean): number {
  if (utc) return time - (time % HOUR_MS);
  const date = new Date(time);
  date.setMinutes(0, 0, 0);
  return date.getTime();
}

function labelOf(start: number, utc: boolean): string {
  const { day, hour } = readDayAndHour(start, utc);
  return `${day} ${String(hour).padStart(2, '0')}:00`;
}

/** Physical requests, logical turns and their failures per hour over the retained window (R6.3). */
export function buildHourlySeries(samples: readonly StoredSample[], turns: readonly RetainedTurn[], utc: boolean): HourlySeries {
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const { time } of [...samples, ...turns]) {
    first = Math.min(first, time);
    last = Math.max(last, time);
  }
  if (first > last) return { hours: [], truncated: false };
  const lastHour = startOfHour(last, utc);
  let from = startOfHour(first, utc);
  const truncated = lastHour - from >= MAX_HOURS * HOUR_MS;
  if (truncated) from = startOfHour(lastHour - (MAX_HOURS - 1) * HOUR_MS, utc);
  const buckets = new Map<number, HourBucket>();
  // Stepping by an hour then back to the hour's start keeps local hours whole across a DST change.
  for (let start = from; start <= lastHour; start = startOfHour(start + HOUR_MS + 1, utc)) {
    buckets.set(start, { start, label: labelOf(start, utc), requests: 0, failedRequests: 0, turns: 0, failedTurns: 0 });
  }
  for (const sample of samples) {
    const bucket = buckets.get(startOfHour(sample.time, utc));
    if (bucket === undefined) continue;
    bucket.requests += 1;
    if (!sample.ok) bucket.failedRequests += 1;
  }
  for (const turn of turns) {
    const bucket = buckets.get(startOfHour(turn.time, utc));
    if (bucket === undefined) continue;
    bucket.turns += 1;
    if (turn.outcome === 'failed') bucket.failedTurns += 1;
  }
  return { hours: [...buckets.values()], truncated };
}
