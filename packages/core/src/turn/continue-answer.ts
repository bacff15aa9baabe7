import type { TurnError } from '../errors/turn-error.js';
import type { CircuitPermit } from '../failover/circuit-breaker.js';
import { classifyFailure } from '../failover/classify-failure.js';
import { decideFailover } from '../failover/decide-failover.js';
import type { DecodedStreamEvent } from '../types/turn-event.js';
import { buildContinuationRequest, canTakePrefill } from './build-continuation-request.js';
import { withoutProviderTools } from '../failover/find-cross-family-blockers.js';
import { buildTargetRequest } from './build-target-request.js';
import { admit, attemptPlanFor, report, requestsOf } from './chain-destination.js';
import { hopOf, type ChainRun } from './chain-run.js';
import { end } from './execute-turn.js';
import type { ChainDestination, PrefillDialect } from './failover-options.js';
import { recordSample } from './record-sample.js';
import { runAttempt, type SegmentRun } from './run-attempt.js';
import { withoutDroppedToolCalls } from './segment-recovery.js';
import type { Turn } from './turn.js';
import type { TurnResult } from './turn-result.js';

/** Where the continuation goes: the cut destination when it can take a prefill, else the next one that can (R11.6). */
function pickContinuationTarget<Native extends object>(
  turn: Turn<Native>,
  run: ChainRun,
  cut: ChainDestination,
): { destination: ChainDestination; native: object; dialect: PrefillDialect; permit: CircuitPermit | 'none' } | undefined {
  const requestFor = requestsOf(turn);
  // Tools are off in a continuation: the provider's own (web search…) need not block another family.
  const hostRequest = withoutProviderTools(turn.options.adapter.protocol, turn.options.request);
  for (const destination of run.chain.destinations) {
    if (destination.index < cut.index) continue;
    const request = destination.protocol === turn.options.adapter.protocol ? requestFor(destination) : buildTargetRequest(turn.options.adapter, hostRequest, destination);
    if (!('native' in request) || !canTakePrefill(destination.adapter, request.native, destination.prefill)) continue;
    const permit = admit(run, destination, false);
    if (permit === undefined) continue;
    return { destination, native: request.native, dialect: destination.prefill!, permit };
  }
  return undefined;
}

/**
 * R11.6: the one continuation of a turn whose answer was cut, stalled or
 * broken mid-text: the partial answer as an assistant prefill, tools off,
 * and only what follows it relayed — in the text block the host has open,
 * so it reads one whole answer. When no destination can take a prefill, or
 * the continuation fails before adding anything (a refused prefill
 * included), the turn ends with the original cut error, never the
 * continuation's own (decision 0401). A host that holds its output has seen
 * none of either: the continuation — sent or not — is `dropped` instead, for
 * the chain to restart the answer (R11.2, decision 0430).
 */
export async function continueAnswer<Native extends object>(
  turn: Turn<Native>,
  run: ChainRun,
  cut: ChainDestination,
  cutError: TurnError,
  reason: 'cut' | 'stall' | 'malformed',
): Promise<{ kind: 'ended'; result: TurnResult } | { kind: 'dropped' }> {
  const held = run.chain.outputHeldUntilEnd;
  const picked = run.visibleText.trim() === '' ? undefined : pickContinuationTarget(turn, run, cut);
  if (picked === undefined) return held ? { kind: 'dropped' } : { kind: 'ended', result: end(turn, { error: cutError }) };
  const { destination, permit } = picked;
  run.continuations += 1;
  const continuationId = turn.options.createId();
  try {
    await turn.events.deliver({ type: 'continuation-start', continuationId, to: hopOf(destination), reason });
  } catch {
    // The host stopped iterating: handled by the stop below.
  }
  const stopped = turn.stopError();
  if (stopped !== undefined) {
    if (permit !== 'none') permit.release();
    return { kind: 'ended', result: end(turn, { error: stopped }) };
  }
  const native = buildContinuationRequest(destination.adapter, picked.native, picked.dialect, run.visibleText);
  const openBlock = run.openTextBlockId;
  // The host already has the whitespace the prefill left out; the model, continuing "…word", writes its own.
  const hostHasTrailingSpace = run.visibleText !== run.visibleText.trimEnd();
  const attempt = await runAttempt(turn as Turn<object>, {
    segmentIndex: 1,
    kind: 'continuation',
    native,
    requestId: continuationId,
    underRetry: false,
    ...attemptPlanFor(turn, run, destination),
    // R4.5's rule for a second segment: its tool calls never reach the host; block ids are mapped below.
    reading: { forwardToolCalls: false, blockIdPrefix: '', keepText: false },
    mapEvents: (events) => continueInOpenBlock(events, openBlock, hostHasTrailingSpace),
  });
  run.lastTried = destination;
  recordSample(turn, attempt.record);
  const { verdict } = attempt;
  if (verdict.kind === 'ok') {
    report(permit, 'ok');
    return { kind: 'ended', result: end(turn, { finishReason: withoutDroppedToolCalls(verdict.facts.finishReason) }) };
  }
  const error = continuationFailure(turn, run, { destination, permit, attempt, cutError });
  if (!held) return { kind: 'ended', result: end(turn, { error }) };
  // Its usage is never the answer's (R5); the cut attempt's tombstone, next, drops its events with the rest.
  run.droppedRequestIds.add(continuationId);
  run.lastTried = cut;
  return { kind: 'dropped' };
}

/**
 * The error a failed continuation ends the turn with: the original cut when
 * it added nothing (never the prefill 400); its own when it got text out,
 * a cut in its own right (R11.6, decision 0401).
 */
function continuationFailure<Native extends object>(
  turn: Turn<Native>,
  run: ChainRun,
  failed: { destination: ChainDestination; permit: CircuitPermit | 'none'; attempt: SegmentRun; cutError: TurnError },
): TurnError {
  const { attempt, cutError } = failed;
  const { verdict } = attempt;
  const error = verdict.kind === 'failed' ? verdict.error : cutError;
  const responseStarted = attempt.attempt.stage === 'streamed';
  report(failed.permit, classifyFailure(error, { responseStarted }));
  run.entryFor(failed.destination).errorCode = error.code;
  const decision = decideFailover({
    error,
    delivered: run.delivered,
    phase: 'continuation',
    attemptDelivered: verdict.facts?.outputConsumed === true,
    responseStarted,
    hasNextTarget: false,
    continuation: run.chain.continuation,
    continuationsSoFar: run.continuations,
    budget: run.chain.budget,
    history: run.history(turn.startedAt, 1, 0),
    nowMs: turn.options.now(),
  });
  return decision.action === 'end' && decision.useOriginalError ? cutError : error;
}

/**
 * A continuation's events as the rest of the host's answer (R11.6): its
 * first text block goes on in the block the host has open (no second start,
 * the same id); its thinking is not the host's to see again; other blocks
 * keep ids of their own.
 */
export async function* continueInOpenBlock(events: AsyncIterable<DecodedStreamEvent>, openBlockId: string | undefined, hostHasTrailingSpace = false): AsyncGenerator<DecodedStreamEvent> {
  let joined: string | undefined;
  let leadingSpaceDropped = !hostHasTrailingSpace;
  const rename = (id: string): string => (id === joined && openBlockId !== undefined ? openBlockId : `continuation-${id}`);
  for await (const event of events) {
    switch (event.type) {
      case 'reasoning-start':
      case 'reasoning-delta':
      case 'reasoning-end':
        continue;
      case 'text-start':
        if (openBlockId !== undefined && joined === undefined) {
          joined = event.id;
          continue;
        }
        yield { ...event, id: rename(event.id) };
        continue;
      case 'text-delta': {
        // A decoder that opens a block with its first delta: that block is the one that goes on.
        if (openBlockId !== undefined && joined === undefined) joined = event.id;
        let { delta } = event;
        if (!leadingSpaceDropped && delta !== '') {
          leadingSpaceDropped = true;
          delta = delta.replace(/^\s+/, '');
          if (delta === '') continue;
        }
        yield { ...event, id: rename(event.id), delta };
        continue;
      }
      case 'text-end':
        yield { ...event, id: rename(event.id) };
        continue;
      default:
        yield event;
    }
  }
}
