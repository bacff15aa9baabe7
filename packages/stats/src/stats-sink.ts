import type { Protocol, Usage } from '@turnguard/core';

/*
 * LOCAL COPY of the `StatsSink` contract that `runTurn` calls (R6.1, R6.2),
 * kept structurally compatible with `packages/core/src/turn/stats-sink.ts`
 * (which appeared while this package was written): core's sink objects are
 * accepted as-is. The lead may replace this file by re-exporting core's types.
 */

/** One physical HTTP request (R6.1). `recordUsage` is called once per request. */
export interface UsageSample {
  /** Epoch milliseconds when the request started. */
  time: number;
  protocol: Protocol;
  model: string;
  ok: boolean;
  /** Stable upper-case TurnError code when `ok` is false (e.g. `STREAM_CUT`). */
  errorCode: string | undefined;
  /** The stream ended without the protocol's terminal frame. */
  truncated: boolean;
  durationMs: number;
  /** Time to first byte of model output; unknown when nothing arrived. */
  ttftMs: number | undefined;
  /** This segment's own decode window (first to last output token), R5.4. */
  decodeWindowMs: number | undefined;
  /** Known counts only: an unknown count is `undefined`, never 0 (R5.1). */
  usage: Partial<Usage>;
  /** The upstream reported no usage at all for this request. */
  noUsage: boolean;
  /** Ties the two segments of one recovered turn together (R4). */
  recoveryId: string | undefined;
  /** 0 = first segment, 1 = recovery segment. */
  attempt: 0 | 1;
  /** This request is the recovery request of a cut turn. */
  recoveryAttempt: boolean;
  /** After this request a recovery request was scheduled. */
  recoveryScheduled: boolean;
  /** This request completed a recovery successfully. */
  recovered: boolean;
  /** Content-free warning codes (R4.10, R4.11). */
  warnings: readonly string[];
}

/** How a logical turn is counted; core reports a recovered turn as `ok` + `recovered: true`. */
export type TurnOutcome = 'ok' | 'failed' | 'recovered' | 'aborted';

/**
 * One logical turn; `recordTurn` is called exactly once per turn (R6.2).
 * Only `time` and the outcome are stored; core's other fields (model,
 * usage, durations…) are accepted and ignored.
 */
export interface TurnRecord {
  /** Epoch milliseconds when the turn ended; defaults to now. */
  time?: number;
  outcome: TurnOutcome;
  /** Core's flag: an `ok` turn that needed a recovery request counts as `recovered`. */
  recovered?: boolean;
}

/** What `runTurn` writes stats through. Methods may return promises. */
export interface StatsSink {
  recordUsage(sample: UsageSample): void | Promise<void>;
  recordTurn(turn: TurnRecord): void | Promise<void>;
}
