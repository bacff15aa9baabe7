import type { Protocol, ProtocolAdapter, UpstreamTarget } from '../adapter/protocol-adapter.js';
import { TurnError } from '../errors/turn-error.js';
import { ignore } from '../internal/ignore.js';
import type { ByteStream } from '../stream/byte-stream.js';
import type { SegmentFacts } from '../stream/segment-facts.js';
import type { ReadSegmentOptions } from '../stream/segment-reader.js';
import type { DecodedStreamEvent } from '../types/turn-event.js';
import { createUpstreamTimeLimitError } from '../failover/upstream-time-limits.js';
import { isConnectTimeout, type AttemptWatch } from './attempt-watch.js';
import { buildSegmentRecord } from './build-segment-record.js';
import { judgeSegmentAttempt, type SegmentVerdict } from './judge-segment-attempt.js';
import { sendRequest } from './send-request.js';
import { recordSample } from './record-sample.js';
import type { Turn } from './turn.js';
import type { BodyKind } from './run-turn.js';
import type { SegmentRecord } from './turn-result.js';

/** Where one physical request of a fail-over chain goes (R11.1); the host's own adapter and target otherwise. */
export interface AttemptRoute {
  adapter: ProtocolAdapter<object>;
  target: UpstreamTarget;
  model: string;
  upstream: string;
  protocol: Protocol;
  /** R11.7: the model of the chain entry this request stands in for; absent on the host's own. */
  fallbackFrom: string | undefined;
}

/** What one physical request of the turn sends. */
export interface AttemptPlan<Native extends object> {
  /** 0: segment 1 (any of its R1 retries, any fallback); 1: the recovery (R4) or continuation (R11.6) segment. */
  segmentIndex: 0 | 1;
  native: Native;
  /** R4.6: the physical request's own id. */
  requestId: string;
  /**
   * Segment 1's attempts run under withRetry (R1): a failed one is recorded
   * at once and thrown to it, to be retried or to end the turn.
   */
  underRetry: boolean;
  /** A chain's request: its destination (R11.1). */
  route?: AttemptRoute;
  /** A chain's request: its own time limits and stop (R11.4). */
  watch?: AttemptWatch;
  /** What the body is: segment 1's, a recovery's (R4) or a continuation's (R11.6). Default from `segmentIndex`. */
  kind?: BodyKind;
  /** How the body is read, where a chain's request differs from the defaults. */
  reading?: Partial<Pick<ReadSegmentOptions, 'blockIdPrefix' | 'forwardToolCalls' | 'keepText'>>;
  /** A continuation's events go on in the host's open text block (R11.6). */
  mapEvents?: (events: AsyncIterable<DecodedStreamEvent>) => AsyncIterable<DecodedStreamEvent>;
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
  const { watch } = plan;
  if (watch !== undefined) {
    turn.activeWatch = watch;
    watch.sending();
  }
  const head = await sendRequest(turn, plan.native, plan.requestId, plan.route === undefined ? undefined : { adapter: plan.route.adapter, target: plan.route.target, signal: watch?.signal ?? turn.signal });
  let attempt: SegmentAttempt;
  if (head.stage !== 'responded') {
    attempt = { ...head, startedAt, endedAt: now() };
  } else {
    watch?.responded();
    try {
      const facts = await readBody(turn, plan, head.body);
      // Release the socket: a decoder that ignores the signal would keep reading.
      if (facts.end === 'aborted') head.body.cancel().catch(ignore);
      attempt = { stage: 'streamed', startedAt, endedAt: now(), facts, status: head.status };
    } catch (thrown) {
      attempt = { stage: 'read-failed', startedAt, endedAt: now(), thrown };
    }
  }
  if (watch !== undefined) {
    watch.dispose();
    turn.activeWatch = undefined;
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
  const { observeSseRecords } = turn.options;
  const { route, watch } = plan;
  const adapter: ProtocolAdapter<object> = route?.adapter ?? turn.options.adapter;
  let events: AsyncIterable<DecodedStreamEvent>;
  try {
    const records = observeSseRecords?.({
      segmentIndex: plan.segmentIndex,
      requestId: plan.requestId,
      kind: plan.kind ?? (plan.segmentIndex === 0 ? 'attempt' : 'recovery'),
      protocol: adapter.protocol,
      model: route?.model ?? turn.model,
      ...(route === undefined ? {} : { upstream: route.upstream }),
    });
    // R11.4: the attempt's stall clock reads the same records (no observer, no raw text, without limits).
    events = adapter.decodeStream(body, { records: watch === undefined ? records : watch.observe(records) });
    if (plan.mapEvents !== undefined) events = plan.mapEvents(events);
  } catch (error) {
    // Nothing reads the body: release the socket.
    body.cancel().catch(ignore);
    throw error;
  }
  return turn.events.readSegment(events, { ...readingRules(turn, plan.segmentIndex, watch?.signal ?? turn.signal), ...plan.reading });
}

function readingRules<Native extends object>(turn: Turn<Native>, segmentIndex: 0 | 1, signal: AbortSignal): ReadSegmentOptions {
  const { recovery, now } = turn.options;
  return {
    signal,
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
  const { segmentIndex, requestId, route } = plan;
  const identity = {
    model: route?.model ?? turn.model,
    ...(route === undefined ? {} : { upstream: route.upstream, protocol: route.protocol }),
    ...(route?.fallbackFrom === undefined ? {} : { fallbackFrom: route.fallbackFrom }),
    ...(plan.kind === 'continuation' ? { continuation: true } : {}),
  };
  const aborted = attempt.stage === 'aborted-before-response' || (attempt.stage === 'streamed' && attempt.facts.end === 'aborted');
  if (aborted) {
    const facts = attempt.stage === 'streamed' ? attempt.facts : undefined;
    // R11.4: the attempt's own limit, unless the turn was stopped (its stop names itself).
    const limitError = turn.stopped === undefined ? plan.watch?.errorFor(facts?.outputConsumed === true, { upstream: identity.upstream ?? '', model: identity.model }) : undefined;
    const error = limitError ?? turn.stopError() ?? new TurnError({ kind: 'aborted', message: 'The request was aborted.' });
    const outcome = error.kind === 'aborted' ? 'aborted' : 'timeout';
    const record = buildSegmentRecord({ segmentIndex, requestId, attempt, outcome, errorCode: error.code, ...identity });
    return { requestId, attempt, verdict: { kind: 'failed', error, facts: limitError === undefined ? undefined : facts }, record };
  }
  const verdict = judgeChainAttempt(plan, attempt, identity);
  const outcome = verdict.kind === 'ok' ? 'ok' : verdict.kind === 'cut' ? 'cut' : 'error';
  const errorCode = verdict.kind === 'failed' ? verdict.error.code : verdict.kind === 'cut' ? 'STREAM_CUT' : undefined;
  return { requestId, attempt, verdict, record: buildSegmentRecord({ segmentIndex, requestId, attempt, outcome, errorCode, ...identity }) };
}

/** R11.4: a connect time-out the transport reported is the connect limit's, under its own code. */
function judgeChainAttempt<Native extends object>(
  plan: AttemptPlan<Native>,
  attempt: Exclude<SegmentAttempt, { stage: 'aborted-before-response' }>,
  identity: { model: string; upstream?: string },
): SegmentVerdict {
  const limit = plan.watch?.connectLimitMs;
  if (limit !== undefined && attempt.stage === 'connect-failed' && isConnectTimeout(attempt.thrown)) {
    const error = createUpstreamTimeLimitError('connectMs', limit, { outputDelivered: false, upstream: identity.upstream ?? '', model: identity.model });
    return { kind: 'failed', error: error.with({ cause: attempt.thrown }), facts: undefined };
  }
  return judgeSegmentAttempt(attempt);
}
