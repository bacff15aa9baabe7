import type { Protocol } from '../adapter/protocol-adapter.js';
import type { Usage } from '../types/usage.js';
import { USAGE_FIELDS } from '../types/usage.js';
import { isKnownCount } from '../usage/index.js';
import type { SegmentAttempt } from './run-attempt.js';
import type { KnownUsage, UsageSample } from './stats-sink.js';
import type { SegmentOutcome, SegmentRecord } from './turn-result.js';

/** Only the counts the upstream reported; an unknown count is absent (R5.3). */
export function pickKnownUsage(usage: Usage | undefined): KnownUsage {
  const known: KnownUsage = {};
  if (usage === undefined) return known;
  for (const field of USAGE_FIELDS) {
    const count = usage[field];
    if (isKnownCount(count)) known[field] = count;
  }
  return known;
}

export interface SegmentRecordInput {
  segmentIndex: 0 | 1;
  requestId: string;
  attempt: SegmentAttempt;
  outcome: SegmentOutcome;
  errorCode: string | undefined;
  /** The model the request asked for (R11.7). */
  model: string;
  upstream?: string;
  protocol?: Protocol;
  fallbackFrom?: string;
  continuation?: boolean;
}

/**
 * R5.4: a segment's speed uses its own decode window and its own known
 * output tokens, and only a segment that ended ok gets one.
 */
export function buildSegmentRecord(input: SegmentRecordInput): SegmentRecord {
  const { attempt } = input;
  const facts = attempt.stage === 'streamed' ? attempt.facts : undefined;
  const usage = facts?.usage;
  const reportedOutput = usage?.outputTokens;
  const outputTokens = isKnownCount(reportedOutput) ? reportedOutput : undefined;
  const ttftMs = facts?.firstOutputAt === undefined ? undefined : facts.firstOutputAt - attempt.startedAt;
  const decodeWindowMs =
    facts?.firstOutputAt === undefined || facts.lastOutputAt === undefined
      ? undefined
      : facts.lastOutputAt - facts.firstOutputAt;
  const decodeTokensPerSecond =
    input.outcome === 'ok' && outputTokens !== undefined && decodeWindowMs !== undefined && decodeWindowMs > 0
      ? outputTokens / (decodeWindowMs / 1000)
      : undefined;
  const hasUsage = usage !== undefined && Object.keys(pickKnownUsage(usage)).length > 0;
  return {
    segmentIndex: input.segmentIndex,
    requestId: input.requestId,
    startedAt: attempt.startedAt,
    durationMs: attempt.endedAt - attempt.startedAt,
    ttftMs,
    decodeWindowMs,
    outputTokens,
    decodeTokensPerSecond,
    usage: hasUsage ? usage : undefined,
    streamed: facts !== undefined,
    terminalFrameSeen: facts?.terminalFrameSeen ?? false,
    outcome: input.outcome,
    errorCode: input.errorCode,
    finishReason: facts?.finishReason,
    responseId: facts?.responseId,
    status: attempt.stage === 'streamed' ? attempt.status : attempt.stage === 'http-error' ? attempt.error.status : undefined,
    responseModel: facts?.responseModel,
    model: input.model,
    ...(input.upstream === undefined ? {} : { upstream: input.upstream }),
    ...(input.protocol === undefined ? {} : { protocol: input.protocol }),
    ...(input.fallbackFrom === undefined ? {} : { fallbackFrom: input.fallbackFrom }),
    ...(input.continuation === true ? { continuation: true } : {}),
  };
}

export interface SampleContext {
  protocol: Protocol;
  recoveryId: string | undefined;
  recoveryScheduled: boolean;
  recovered: boolean;
  warnings: readonly string[];
}

/** One content-free physical sample (R6.1, R4.10); `warnings` is copied and frozen (R4.11). */
export function buildUsageSample(record: SegmentRecord, context: SampleContext): UsageSample {
  const usage = pickKnownUsage(record.usage);
  return {
    time: record.startedAt,
    protocol: record.protocol ?? context.protocol,
    model: record.model,
    ok: record.outcome === 'ok',
    errorCode: record.errorCode,
    truncated: record.streamed && !record.terminalFrameSeen,
    durationMs: record.durationMs,
    ttftMs: record.ttftMs,
    decodeWindowMs: record.decodeWindowMs,
    usage,
    noUsage: Object.keys(usage).length === 0,
    recoveryId: context.recoveryId,
    attempt: record.segmentIndex,
    // A continuation is segment 2 of its answer, but not an R4 recovery.
    recoveryAttempt: record.segmentIndex === 1 && record.continuation !== true,
    recoveryScheduled: context.recoveryScheduled,
    recovered: context.recovered,
    warnings: Object.freeze([...context.warnings]),
    ...(record.fallbackFrom === undefined ? {} : { fallbackFrom: record.fallbackFrom }),
    ...(record.continuation === true ? { continuation: true } : {}),
  };
}
