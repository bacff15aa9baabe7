import type { Protocol } from '../adapter/protocol-adapter.js';
import type { UsageField } from '../types/usage.js';

/** Known counts only: an unknown count is absent, never 0 (R5.1, R5.3). */
export type KnownUsage = Partial<Record<UsageField, number>>;

/**
 * One physical request (R6.1). Content-free by construction (R4.10): only
 * numbers, codes, ids and warning texts that name what was dropped.
 */
export interface UsageSample {
  /** Epoch ms when the request was sent. */
  time: number;
  protocol: Protocol;
  model: string;
  ok: boolean;
  errorCode: string | undefined;
  /** The body ended or was cut before the protocol's terminal frame. */
  truncated: boolean;
  durationMs: number;
  ttftMs: number | undefined;
  decodeWindowMs: number | undefined;
  usage: KnownUsage;
  /** The upstream reported no usage at all for this request. */
  noUsage: boolean;
  /** Shared by both segments of a recovered turn; absent when no recovery was scheduled. */
  recoveryId: string | undefined;
  /** Segment index: 0 for segment 1 (and its R1 retries), 1 for the recovery segment. */
  attempt: 0 | 1;
  recoveryAttempt: boolean;
  recoveryScheduled: boolean;
  recovered: boolean;
  /** A frozen snapshot; never changes after the sample is recorded (R4.11). */
  warnings: readonly string[];
  /** R11.7: the model this fallback request stood in for; absent on the chain's first target and without a chain. */
  fallbackFrom?: string;
  /** R11.6: the turn's mid-answer continuation request; absent otherwise. */
  continuation?: boolean;
}

export type TurnOutcome = 'ok' | 'failed' | 'aborted';

/** One logical turn (R6.2). */
export interface TurnRecord {
  time: number;
  protocol: Protocol;
  /** The model that answered (the requested one without a chain, R11.7). */
  model: string;
  outcome: TurnOutcome;
  errorCode: string | undefined;
  recovered: boolean;
  recoveryId: string | undefined;
  physicalRequests: number;
  durationMs: number;
  /** Aggregated known usage and whether every segment reported usage (R5.2). */
  usage: KnownUsage;
  usageComplete: boolean;
  /** R11.7, with a fail-over chain only: each entry the turn reached (content-free). */
  chain?: ReadonlyArray<{ upstream: string; model: string; outcome: 'answered' | 'failed' | 'skipped'; attempts: number; errorCode?: string; skippedBecause?: string }>;
  /** R11.7: times the turn moved to another chain entry. */
  fallbacks?: number;
  /** R11.6: a continuation request was sent. */
  continued?: boolean;
}

/**
 * Where runTurn reports what happened. `recordUsage` once per physical
 * request, `recordTurn` exactly once per logical turn on every path (R6.1,
 * R6.2). A sink that throws or rejects never breaks the turn.
 */
export interface StatsSink {
  recordUsage(sample: UsageSample): void | Promise<void>;
  recordTurn(turn: TurnRecord): void | Promise<void>;
}
