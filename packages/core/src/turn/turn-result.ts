import type { Protocol } from '../adapter/protocol-adapter.js';
import type { TurnError } from '../errors/turn-error.js';
import type { FinishReason } from '../types/finish-reason.js';
import type { Usage } from '../types/usage.js';
import type { TurnEvent } from '../types/turn-event.js';
import type { RecoverySkipReason } from './decide-recovery.js';
import type { ChainEntry } from './chain-run.js';

export type SegmentOutcome = 'ok' | 'cut' | 'error' | 'timeout' | 'aborted';

/** One physical request of a turn, with its own timings (R5.4). */
export interface SegmentRecord {
  /** 0 = segment 1 (and its R1 retries), 1 = recovery segment. */
  segmentIndex: 0 | 1;
  requestId: string;
  startedAt: number;
  durationMs: number;
  /** From request start to the first content event (reasoning, text or tool call). */
  ttftMs: number | undefined;
  /** From the first to the last content event of this segment. */
  decodeWindowMs: number | undefined;
  outputTokens: number | undefined;
  /** This segment's own known output tokens over its own decode window; ok segments only (R5.4). */
  decodeTokensPerSecond: number | undefined;
  /** This segment's usage as reported; undefined when it reported none. */
  usage: Usage | undefined;
  /** True when an HTTP 2xx stream was read (its usage enters the aggregate). */
  streamed: boolean;
  terminalFrameSeen: boolean;
  outcome: SegmentOutcome;
  errorCode: string | undefined;
  finishReason: FinishReason | undefined;
  /**
   * The upstream's id for this segment's response, when it sent one. After a
   * recovery the host saw segment 1's id only (one logical response); this is
   * where the recovery segment's own id is (gateway: `previous_response_id`).
   */
  responseId?: string | undefined;
  /** The upstream's HTTP status, when a response head came (R12.1: the physical request's span). */
  status?: number | undefined;
  /** The model the upstream said answered, when it said (R12.1: `gen_ai.response.model`). */
  responseModel?: string | undefined;
  /** The model this request asked for (R11.7). */
  model: string;
  /** In a fail-over chain: the upstream it went to, and its protocol family. */
  upstream?: string;
  protocol?: Protocol;
  /** In a fail-over chain: the model of the entry this request stood in for (R11.7). */
  fallbackFrom?: string;
  /** The turn's one mid-answer continuation request (R11.6). */
  continuation?: boolean;
}

export interface AggregatedTurnUsage extends Usage {
  /** False when some streamed segment reported no usage: never the whole turn's spend (R5.2). */
  complete: boolean;
  segmentCount: number;
  segmentsWithUsage: number;
}

export interface TurnRecovery {
  recoveryId: string;
  /** Final state: scheduled and sent, recovered (terminal frame + non-whitespace text) or not. */
  recovered: boolean;
  capacityCheck: 'passed' | 'window-unknown';
  maxOutputTokens: number;
}

export interface TurnResult {
  outcome: 'ok' | 'error';
  error: TurnError | undefined;
  finishReason: FinishReason | undefined;
  usage: AggregatedTurnUsage;
  segments: SegmentRecord[];
  recovery: TurnRecovery | undefined;
  /** Set when segment 1 was cut and recovery was not attempted. */
  recoverySkipped: RecoverySkipReason | undefined;
  warnings: readonly string[];
  durationMs: number;
  /** The model that answered, or the last one asked when none did (R11.7); runTurn always sets it. */
  model?: string;
  /** R11: each entry of the fail-over chain the turn reached, in order; absent without a chain. */
  chain?: ChainEntry[];
  /** R11.7: times the turn moved to another chain entry. */
  fallbacks?: number;
  /** R11.6: a continuation request was sent. */
  continued?: boolean;
}

/** `AsyncIterable` of what the host sees, plus the final outcome. */
export interface TurnRun extends AsyncIterable<TurnEvent> {
  /**
   * Resolves when the turn has ended (never rejects). Awaiting it without
   * iterating drains the events so the turn still runs.
   */
  readonly result: Promise<TurnResult>;
}
