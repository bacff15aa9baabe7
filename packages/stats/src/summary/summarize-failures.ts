import { PROTOCOLS, type Protocol } from '@turnguard/core';
import type { StoredSample } from '../store/sample-fields.js';
import { readDayAndHour } from './local-time.js';
import { computeRate } from './percentile.js';

/** How many failures the recent-failures table lists, newest first. */
export const RECENT_FAILURES = 20;
/** The code shown for a failed request that carried none. */
export const NO_ERROR_CODE = '(no code)';

export interface FailureCodeCount {
  code: string;
  count: number;
  byProtocol: Record<Protocol, number>;
}

export interface ProtocolFailures {
  protocol: Protocol;
  requests: number;
  failed: number;
  rate: number | undefined;
}

/** One failed physical request: codes and names only, never content (R4.10). */
export interface RecentFailure {
  time: number;
  /** `YYYY-MM-DD HH:MM:SS`, in UTC or local time as the summary was asked. */
  label: string;
  protocol: Protocol;
  model: string;
  code: string;
}

export interface FailureSummary {
  /** Failed physical requests by error code, most frequent first, split by protocol. */
  byCode: FailureCodeCount[];
  /** Physical requests and failures per protocol that has any. */
  byProtocol: ProtocolFailures[];
  recent: RecentFailure[];
}

function timeLabel(time: number, utc: boolean): string {
  const { day, hour } = readDayAndHour(time, utc);
  const date = new Date(time);
  const minutes = utc ? date.getUTCMinutes() : date.getMinutes();
  const seconds = utc ? date.getUTCSeconds() : date.getSeconds();
  return `${day} ${[hour, minutes, seconds].map((part) => String(part).padStart(2, '0')).join(':')}`;
}

function zeroPerProtocol(): Record<Protocol, number> {
  return { chat: 0, messages: 0, responses: 0 };
}

/** Failures in the retained window (R6.3), by code, by protocol, and the latest few. */
export function summarizeFailures(samples: readonly StoredSample[], utc = false): FailureSummary {
  const codes = new Map<string, FailureCodeCount>();
  const requests = zeroPerProtocol();
  const failed = zeroPerProtocol();
  const failures: StoredSample[] = [];
  for (const sample of samples) {
    requests[sample.protocol] += 1;
    if (sample.ok) continue;
    failed[sample.protocol] += 1;
    failures.push(sample);
    const code = sample.errorCode ?? NO_ERROR_CODE;
    let entry = codes.get(code);
    if (entry === undefined) codes.set(code, (entry = { code, count: 0, byProtocol: zeroPerProtocol() }));
    entry.count += 1;
    entry.byProtocol[sample.protocol] += 1;
  }
  return {
    byCode: [...codes.values()].sort((a, b) => b.count - a.count || a.code.localeCompare(b.code)),
    byProtocol: PROTOCOLS.filter((protocol) => requests[protocol] > 0).map((protocol) => ({
      protocol,
      requests: requests[protocol],
      failed: failed[protocol],
      rate: computeRate(failed[protocol], requests[protocol]),
    })),
    recent: failures
      .sort((a, b) => b.time - a.time)
      .slice(0, RECENT_FAILURES)
      .map((sample) => ({ time: sample.time, label: timeLabel(sample.time, utc), protocol: sample.protocol, model: sample.model, code: sample.errorCode ?? NO_ERROR_CODE })),
  };
}
