import { TurnError } from '../errors/turn-error.js';

export type TimeLimitKind = 'turn' | 'recovery-segment';

/** The client-side time limit that applies to one segment (R4.7). */
export interface SegmentTimeLimit {
  kind: TimeLimitKind;
  /** The configured limit that will fire, for the message (R4.9). */
  limitMs: number;
  /** When it fires (epoch ms). */
  firesAt: number;
}

/**
 * Segment 1 runs under the whole-turn limit; the recovery segment under its
 * own limit, never past the turn limit (R4.7). Whichever fires first is the
 * one named in the error.
 */
export function pickSegmentTimeLimit(
  segmentIndex: 0 | 1,
  nowMs: number,
  turnDeadlineAt: number,
  turnTimeoutMs: number,
  recoverySegmentTimeoutMs: number,
): SegmentTimeLimit {
  const turnLimit: SegmentTimeLimit = { kind: 'turn', limitMs: turnTimeoutMs, firesAt: turnDeadlineAt };
  if (segmentIndex === 0) return turnLimit;
  const segmentFiresAt = nowMs + recoverySegmentTimeoutMs;
  return segmentFiresAt < turnDeadlineAt
    ? { kind: 'recovery-segment', limitMs: recoverySegmentTimeoutMs, firesAt: segmentFiresAt }
    : turnLimit;
}

function formatSeconds(ms: number): string {
  return String(Math.round(ms) / 1000);
}

/**
 * R4.9: the message names the real seconds of the limit that fired and the
 * segment that hit it: a segment-1 timeout must not talk about a recovery
 * that never happened. Segment 1 → `TIMEOUT`; the
 * recovery segment → `STREAM_CUT` like every other recovery failure.
 */
export function createTimeLimitError(segmentIndex: 0 | 1, limit: SegmentTimeLimit): TurnError {
  const seconds = formatSeconds(limit.limitMs);
  const limitName = limit.kind === 'turn' ? `${seconds} s turn time limit` : `${seconds} s recovery segment time limit`;
  const details = { timeLimit: limit.kind, limitSeconds: limit.limitMs / 1000, segment: segmentIndex + 1 };
  if (segmentIndex === 0) {
    return new TurnError({
      kind: 'timeout',
      retryable: false,
      message: `Segment 1 reached the ${limitName} before its finish frame.`,
      details,
    });
  }
  return new TurnError({
    kind: 'stream_cut',
    retryable: false,
    message: `The recovery segment (segment 2) reached the ${limitName} before its finish frame; the cut thinking stream was not recovered.`,
    details,
  });
}

/** setTimeout-based (fake-timer friendly); returns the timer, for clearTimeout. */
export function armTimer(delayMs: number, onFire: () => void): ReturnType<typeof setTimeout> {
  return setTimeout(onFire, Math.max(0, delayMs));
}
