import { TurnError } from '../errors/turn-error.js';
import { ignore } from '../internal/ignore.js';
import type { ByteStream } from '../stream/byte-stream.js';
import type { SegmentFacts } from '../stream/segment-facts.js';
import type { ReadSegmentOptions } from '../stream/segment-reader.js';
import { buildSegmentRecord } from './build-segment-record.js';
import { judgeSegmentAttempt, type SegmentVerdict } from './judge-segment-attempt.js';
import { sendRequest } from './send-request.js';
import { recordSample } from './record-sample.js';
import type { Turn } from './turn.js';
import type { SegmentRecord } from './turn-result.js';

/** What one physical request of the turn sends. */
export interface AttemptPlan<Native extends object> {
  /** 0: segment 1 (any of its R1 retries); 1: the recovery segment (R4). */
  segmentIndex: 0 | 1;
  native: Native;
  /** R4.6: the physical request's own id. */
  requestId: string;
  /**
   * Segment 1's attempts run under withRetry (R1): a failed one is recorded
   * at once and thrown to it, to be retried or to end the turn.
   */
  underRetry: boolean;
}

/** How one physical request went, before any decision about it. */
export type SegmentAttempt =
  | { stage: 'aborted-before-response'; startedAt: number; endedAt: number }
  | { stage: 'connect-failed'; startedAt: number; endedAt: number; thrown: unknown }
  | { stage: 'http-error'; startedAt: number; endedAt: number; error: TurnError }
  /**
   * The response came, but its stream could not be read: the adapter's
   * decoder or runTurn's reader threw (a bug, not the wire). Still a
   * physical request, so it is recorded (R6.1).
   */
  | { stage: 'read-failed'; startedAt: number; endedAt: number; thrown: unknown }
  | { stage: 'streamed'; startedAt: number; endedAt: number; facts: SegmentFacts; status: number };

/** One physical request as the turn keeps it: what happened, what it means, its record. */
export interface SegmentRun {
  requestId: string;
  attempt: SegmentAttempt;
  verdict: SegmentVerdict;
  record: SegmentRecord;
}

/**
 * One physical request of the turn: sent, its stream handed to the host,
 * judged, and recorded in the turn's segments (R6.1). Segment 1's attempts
 * and the recovery segment are each one call.
 */
export async function runAttempt<Native extends object>(turn: Turn<Native>, plan: AttemptPlan<Native>): Promise<SegmentRun> {
  const { now } = turn.options;
  const startedAt = now();
  const head = await sendRequest(turn, plan.native, plan.requestId);
  let attempt: SegmentAttempt;
  if (head.stage !== 'responded') {
    attempt = { ...head, startedAt, endedAt: now() };
  } else {
    try {
      const facts = await readBody(turn, plan, head.body);
      // Release the socket: a decoder that ignores the signal would keep reading.
      if (facts.end === 'aborted') head.body.cancel().catch(ignore);
      attempt = { stage: 'streamed', startedAt, endedAt: now(), facts, status: head.status };
    } catch (thrown) {
      attempt = { stage: 'read-failed', startedAt, endedAt: now(), thrown };
    }
  }
  const run = judgeSegmentRun(turn, plan, attempt);
  turn.segments.push(run.record);
  if (plan.underRetry && run.verdict.kind === 'failed') {
    recordSample(turn, run.record);
    throw run.verdict.error;
  }
  return run;
}

/** The body's events, handed to the host one per pull; the observer (if any) sees each SSE record first (R8.13). */
function readBody<Native extends object>(turn: Turn<Native>, plan: AttemptPlan<Native>, body: ByteStream): Promise<SegmentFacts> {
  const { adapter, observeSseRecords } = turn.options;
  let events;
  try {
    const records = observeSseRecords?.({ segmentIndex: plan.segmentIndex, requestId: plan.requestId });
    events = adapter.decodeStream(body, { records });
  } catch (error) {
    // Nothing reads the body: release the socket.
    body.cancel().catch(ignore);
    throw error;
  }
  return turn.events.readSegment(events, readingRules(turn, plan.segmentIndex));
}

function readingRules<Native extends object>(turn: Turn<Native>, segmentIndex: 0 | 1): ReadSegmentOptions {
  const { recovery, now } = turn.options;
  return {
    signal: turn.signal,
    now,
    notices: turn,
    forwardToolCalls: segmentIndex === 0,
    blockIdPrefix: segmentIndex === 0 ? '' : 'recovery-',
    // R4.3: only segment 1's reasoning can become a checkpoint, and only with recovery on.
    keepReasoning: segmentIndex === 0 && recovery.enabled && recovery.recoveriesPerTurn > 0,
    reasoningMaxChars: recovery.enabled ? recovery.checkpointMaxChars : 0,
  };
}

/** What one physical request's attempt means for the turn: its verdict and its record (R6.1). */
function judgeSegmentRun<Native extends object>(turn: Turn<Native>, plan: AttemptPlan<Native>, attempt: SegmentAttempt): SegmentRun {
  const { segmentIndex, requestId } = plan;
  const aborted = attempt.stage === 'aborted-before-response' || (attempt.stage === 'streamed' && attempt.facts.end === 'aborted');
  if (aborted) {
    const error = turn.stopError() ?? new TurnError({ kind: 'aborted', message: 'The request was aborted.' });
    const outcome = error.kind === 'aborted' ? 'aborted' : 'timeout';
    const record = buildSegmentRecord({ segmentIndex, requestId, attempt, outcome, errorCode: error.code });
    return { requestId, attempt, verdict: { kind: 'failed', error, facts: undefined }, record };
  }
  const verdict = judgeSegmentAttempt(attempt);
  const outcome = verdict.kind === 'ok' ? 'ok' : verdict.kind === 'cut' ? 'cut' : 'error';
  const errorCode = verdict.kind === 'failed' ? verdict.error.code : verdict.kind === 'cut' ? 'STREAM_CUT' : undefined;
  return { requestId, attempt, verdict, record: buildSegmentRecord({ segmentIndex, requestId, attempt, outcome, errorCode }) };
}
