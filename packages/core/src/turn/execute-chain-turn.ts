import { TurnError } from '../errors/turn-error.js';
import { minDefined } from '../internal/min-defined.js';
import { attachDebugDump } from '../retry/debug-dump.js';
import { classifyFailure, type FailureClass } from '../failover/classify-failure.js';
import { decideFailover, type FailoverDecision } from '../failover/decide-failover.js';
import { computeBurstDelayMs } from '../failover/retry-budget.js';
import type { CircuitPermit } from '../failover/circuit-breaker.js';
import { admit, attemptPlanFor, report, requestsOf, type DestinationRequest } from './chain-destination.js';
import { planChainRetry, resizeForOverflow, waitForChain } from './chain-retry.js';
import { ChainRun, hopOf } from './chain-run.js';
import { continueAnswer } from './continue-answer.js';
import { end, recoverCutSegment, toUnexpectedError } from './execute-turn.js';
import type { ChainDestination } from './failover-options.js';
import { createStreamCutError } from './judge-segment-attempt.js';
import { recordSample } from './record-sample.js';
import { runAttempt, type SegmentRun } from './run-attempt.js';
import { decideSegmentRecovery } from './segment-recovery.js';
import type { Turn } from './turn.js';
import type { TurnResult } from './turn-result.js';

/** How one destination of the chain ended: the turn ended with it, or the chain moves on. */
type DestinationOutcome = { kind: 'ended'; result: TurnResult } | { kind: 'move'; reason: string; error: TurnError | undefined };

/** Why the chain came to a destination (the `fallback` event), once it moved from an earlier one. */
type Moved = { reason: string; error: TurnError | undefined } | undefined;

/**
 * Segment 1 as a fail-over chain (R11): each destination in order — the
 * host's own request first — with R1's retries under one budget (R11.3),
 * R4's recovery inside an attempt, one continuation after a cut answer
 * (R11.6), and a circuit per upstream and model (R11.5). Plain async code
 * around runAttempt; decideFailover says what each failure means. Never rejects.
 */
export async function executeChainTurn<Native extends object>(turn: Turn<Native>): Promise<TurnResult> {
  const run = new ChainRun(turn.options.chain!);
  turn.chainRun = run;
  try {
    turn.begin();
    turn.armSegmentLimit(0);
    return await walkChain(turn, run);
  } catch (thrown) {
    return end(turn, { error: turn.stopError() ?? (TurnError.isInstance(thrown) ? thrown : toUnexpectedError(thrown)) });
  }
}

async function walkChain<Native extends object>(turn: Turn<Native>, run: ChainRun): Promise<TurnResult> {
  const { destinations, circuitBreakers } = run.chain;
  const requestFor = requestsOf(turn);
  const refusedByCircuit: ChainDestination[] = [];
  let moved: Moved;
  // decideFailover's `hasNextTarget`: a later destination that can take the request and whose circuit is not open.
  const usableAfter = (index: number): boolean =>
    destinations.some((later) => later.index > index && 'native' in requestFor(later) && circuitBreakers?.stateOf({ upstream: later.upstream, model: later.model }) !== 'open');
  for (const destination of destinations) {
    const request = requestFor(destination);
    if (!('native' in request)) {
      run.skip(destination, request.blockedBy.join(','));
      continue;
    }
    const outcome = await runDestination(turn, run, destination, request, { hasNext: usableAfter(destination.index), moved, bypassCircuit: false });
    if (outcome.kind === 'ended') return outcome.result;
    if (outcome.reason === 'circuit-open' && run.entryFor(destination).attempts === 0) refusedByCircuit.push(destination);
    moved = { reason: outcome.reason, error: outcome.error ?? moved?.error };
  }
  // R11.5: every circuit was open and nothing was sent: the first is tried anyway (a stale circuit never starves a recovered upstream).
  const first = refusedByCircuit[0];
  if (first !== undefined && run.attemptStartTimes.length === 0) {
    const outcome = await runDestination(turn, run, first, requestFor(first) as DestinationRequest, { hasNext: false, moved: undefined, bypassCircuit: true });
    if (outcome.kind === 'ended') return outcome.result;
    moved = { reason: outcome.reason, error: outcome.error ?? moved?.error };
  }
  return end(turn, { error: moved?.error ?? noDestinationError(run) });
}

function noDestinationError(run: ChainRun): TurnError {
  return new TurnError({
    kind: 'invalid_request',
    code: 'NO_FALLBACK_TARGET',
    retryable: false,
    message: `No target of the fail-over chain could take this request (${run.entries.map((entry) => `${entry.upstream}/${entry.model}: ${entry.skippedBecause ?? entry.outcome}`).join('; ')}).`,
    details: { chain: run.entries.map((entry) => ({ upstream: entry.upstream, model: entry.model, skippedBecause: entry.skippedBecause })) },
  });
}

interface DestinationContext {
  /** A later destination can take the request (decideFailover's `hasNextTarget`). */
  hasNext: boolean;
  moved: Moved;
  /** Every circuit was open: this one is tried without asking its circuit. */
  bypassCircuit: boolean;
}

/** Moving to a new destination: the host hears of it once, before its first request (R11.7). */
async function announce<Native extends object>(turn: Turn<Native>, run: ChainRun, destination: ChainDestination, moved: Moved): Promise<TurnError | undefined> {
  const from = run.lastTried ?? run.chain.destinations[0]!;
  run.fallbacks += 1;
  turn.events.post({
    type: 'fallback',
    from: hopOf(from),
    to: hopOf(destination),
    reason: moved?.reason ?? 'circuit-open',
    ...(moved?.error === undefined ? {} : { errorCode: moved.error.code }),
  });
  // R11.3: never more than the budget's burst of attempts in the first seconds, across targets too.
  return waitForChain(turn, computeBurstDelayMs(run.chain.budget, run.history(turn.startedAt, 0, 0), turn.options.now()));
}

/**
 * One destination: its requests until one answers, the budget gives up on
 * it, or the turn must end (R11.2). Every physical request is one sample
 * with its model and the one it stood in for (R11.7).
 */
async function runDestination<Native extends object>(
  turn: Turn<Native>,
  run: ChainRun,
  destination: ChainDestination,
  destinationRequest: DestinationRequest,
  context: DestinationContext,
): Promise<DestinationOutcome> {
  const entry = run.entryFor(destination);
  let request = destinationRequest.native;
  let requestId = turn.options.createId();
  let consecutiveCounted = 0;
  let credentialsRefreshed = false;
  let lastError: TurnError | undefined;
  for (let retryNumber = 1; ; retryNumber += 1) {
    const stopped = turn.stopError();
    if (stopped !== undefined) return ended(turn, stopped);
    const permit = admit(run, destination, context.bypassCircuit);
    if (permit === undefined) {
      run.skip(destination, 'circuit-open');
      // Its circuit opened on this destination's own failures: the last of them is what the turn ends with, if nothing follows.
      return { kind: 'move', reason: 'circuit-open', error: lastError };
    }
    if (retryNumber === 1 && destination.index > 0) {
      const stoppedWhileMoving = await announce(turn, run, destination, context.moved);
      if (stoppedWhileMoving !== undefined) {
        if (permit !== 'none') permit.release();
        return ended(turn, stoppedWhileMoving);
      }
    }
    const attempt = await sendOne(turn, run, destination, request, requestId);
    entry.attempts += 1;
    const { verdict } = attempt;
    if (verdict.kind === 'ok') {
      report(permit, 'ok');
      recordSample(turn, attempt.record);
      return { kind: 'ended', result: end(turn, { finishReason: verdict.facts.finishReason }) };
    }
    const recovered = await recoverThinkingCut(turn, run, { destination, request, permit, attempt });
    if (recovered !== undefined) return recovered;
    const error = verdict.kind === 'cut' ? createStreamCutError('The stream ended without a finish frame after output reached the host.') : verdict.error;
    const failure = classifyFailure(error, { responseStarted: attempt.attempt.stage === 'streamed' });
    report(permit, failure);
    entry.errorCode = error.code;
    recordSample(turn, attempt.record);
    const nextId = turn.options.createId();
    // R1.7: one credential refresh and one retry, for the host's own target (its hook returns its credentials).
    if (error.kind === 'auth' && destination.index === 0 && !credentialsRefreshed && turn.options.retry.refreshCredentials !== undefined) {
      credentialsRefreshed = true;
      const failed = await planChainRetry(turn, { reason: 'auth_refresh', delayMs: 0, error, attempt: requestId, nextAttempt: nextId, retryNumber });
      if (failed !== undefined) return ended(turn, failed);
      requestId = nextId;
      continue;
    }
    consecutiveCounted = countsTowardFailOver(run, failure, error) ? consecutiveCounted + 1 : 0;
    const failed: FailedAttempt = { destination, error, requestId, responseStarted: attempt.attempt.stage === 'streamed', hasNext: context.hasNext, retryNumber, consecutiveCounted };
    const judged = decideAfterFailure(turn, run, failed);
    lastError = judged.error;
    const next = await follow(turn, run, judged.decision, { failed, error: judged.error, request, nextId });
    if (next.kind !== 'retry') return next;
    request = next.request;
    requestId = nextId;
  }
}

/**
 * R4 before any fail-over: a thinking stream cut before its answer is
 * recovered on the same destination, once, and the turn ends with that.
 * Undefined: no recovery; the chain judges the cut.
 */
async function recoverThinkingCut<Native extends object>(
  turn: Turn<Native>,
  run: ChainRun,
  sent: { destination: ChainDestination; request: object; permit: CircuitPermit | 'none'; attempt: SegmentRun },
): Promise<DestinationOutcome | undefined> {
  const { destination, request, permit, attempt } = sent;
  const { verdict } = attempt;
  if (verdict.kind !== 'cut' || run.delivered !== 'reasoning') return undefined;
  const recovery = decideSegmentRecovery({ adapter: destination.adapter, request, recovery: turn.options.recovery }, verdict.facts, turn.stopped !== undefined, turn.options.now(), turn.deadlineAt);
  if (!recovery.recover) return undefined;
  report(permit, 'cut');
  return { kind: 'ended', result: await recoverCutSegment(turn, attempt, verdict.facts, { adapter: destination.adapter, request, plan: () => attemptPlanFor(turn, run, destination) }) };
}

interface FailedAttempt {
  destination: ChainDestination;
  error: TurnError;
  requestId: string;
  responseStarted: boolean;
  hasNext: boolean;
  retryNumber: number;
  consecutiveCounted: number;
}

/**
 * What a failed attempt of segment 1 means (decideFailover), and the error
 * the turn goes on with. A host that holds the output (runTurn's
 * `outputHeldUntilEnd`) has shown none of it: unless the operator's opt-in
 * continuation carries the answer on (R11.6) — tried once, and not again once
 * `continuationTried` says it could not — the attempt is dropped (one
 * `tombstone` tells the host, R3.8) and judged as a failure before output
 * (R11.2, decision 0430).
 */
function decideAfterFailure<Native extends object>(
  turn: Turn<Native>,
  run: ChainRun,
  failed: FailedAttempt,
  continuationTried = false,
): { decision: FailoverDecision; error: TurnError } {
  const decide = (error: TurnError, delivered: ChainRun['delivered']): FailoverDecision =>
    decideFailover({
      error,
      delivered,
      phase: 'attempt',
      attemptDelivered: false,
      responseStarted: failed.responseStarted,
      hasNextTarget: failed.hasNext,
      continuation: run.chain.continuation,
      continuationsSoFar: run.continuations,
      budget: run.chain.budget,
      history: run.history(turn.startedAt, failed.retryNumber, failed.consecutiveCounted),
      nowMs: turn.options.now(),
      ...(turn.options.retry.random === undefined ? {} : { random: turn.options.retry.random }),
    });
  const decision = decide(failed.error, run.delivered);
  if (!run.chain.outputHeldUntilEnd || run.delivered === 'nothing') return { decision, error: failed.error };
  if (decision.action === 'continue' && !continuationTried) return { decision, error: failed.error };
  run.dropOutput(failed.requestId);
  turn.events.post({ type: 'tombstone', messageId: failed.requestId });
  // R1.2 wrapped the failure as STREAM_CUT because output had reached the host; none was shown, so the upstream's own is judged.
  const error = failed.error.kind === 'stream_cut' && TurnError.isInstance(failed.error.cause) ? failed.error.cause : failed.error;
  return { decision: decide(error, 'nothing'), error };
}

function ended<Native extends object>(turn: Turn<Native>, error: TurnError): DestinationOutcome {
  return { kind: 'ended', result: end(turn, { error }) };
}

/** R1.9 counts overloads only; R11.3's interactive budget every retryable failure. */
function countsTowardFailOver(run: ChainRun, failure: FailureClass, error: TurnError): boolean {
  if (run.chain.budget.failOverCounts === 'overloads') return error.kind === 'overloaded';
  return failure === 'transient' || failure === 'silent-route' || failure === 'stall' || failure === 'cut' || failure === 'malformed';
}

/** One physical request to a destination, its output noted for the chain. */
async function sendOne<Native extends object>(turn: Turn<Native>, run: ChainRun, destination: ChainDestination, native: object, requestId: string): Promise<SegmentRun> {
  run.attemptStartTimes.push(turn.options.now());
  const attempt = await runAttempt(turn as Turn<object>, {
    segmentIndex: 0,
    native,
    requestId,
    underRetry: false,
    ...attemptPlanFor(turn, run, destination),
    reading: {
      // A body spliced after output keeps its block ids apart from what the host has (R8.7).
      blockIdPrefix: run.delivered === 'nothing' ? '' : `fallback-${run.attemptStartTimes.length}-`,
      keepText: run.chain.continuation === 'prefill',
    },
  });
  run.lastTried = destination;
  run.noteOutput(attempt.verdict.facts);
  return attempt;
}

/** What the decision means for this destination: a retry (with the request to send), or an outcome. */
async function follow<Native extends object>(
  turn: Turn<Native>,
  run: ChainRun,
  decision: FailoverDecision,
  facts: { failed: FailedAttempt; error: TurnError; request: object; nextId: string },
): Promise<DestinationOutcome | { kind: 'retry'; request: object }> {
  const { error, failed } = facts;
  const { destination } = failed;
  switch (decision.action) {
    case 'retry': {
      const deadlineAt = minDefined(turn.deadlineAt, turn.options.retry.deadlineAt);
      // R1.3: never sleep past the deadline only to fail after it.
      if (deadlineAt !== undefined && turn.options.now() + decision.delayMs > deadlineAt) return ended(turn, error);
      const resize = decision.reason === 'context-resize';
      const request = resize ? resizeForOverflow(destination.adapter, facts.request, error, turn.options.retry.thinkingBudget) : facts.request;
      const reason = resize ? 'context_overflow_resize' : error.retryAfterMs === undefined ? 'backoff' : 'server_directed';
      const stopped = await planChainRetry(turn, { reason, delayMs: decision.delayMs, error, attempt: failed.requestId, nextAttempt: facts.nextId, retryNumber: failed.retryNumber });
      return stopped === undefined ? { kind: 'retry', request } : ended(turn, stopped);
    }
    case 'fail-over':
      return { kind: 'move', reason: decision.reason, error };
    case 'continue': {
      const continued = await continueAnswer(turn, run, destination, error, decision.reason);
      if (continued.kind === 'ended') return continued;
      // A held host's continuation added nothing it keeps (or could not be sent): the cut is judged again, without it (decision 0430).
      const judged = decideAfterFailure(turn, run, failed, true);
      return follow(turn, run, judged.decision, { ...facts, error: judged.error });
    }
    case 'end':
      return ended(turn, await withDebugDump(turn, error));
    default: {
      const _exhaustive: never = decision;
      return _exhaustive;
    }
  }
}

/** R1.10: a plain 400 gets its debug dump before it leaves. */
async function withDebugDump<Native extends object>(turn: Turn<Native>, error: TurnError): Promise<TurnError> {
  const { debugDump } = turn.options.retry;
  if (debugDump === undefined || error.status !== 400 || error.kind !== 'invalid_request') return error;
  return attachDebugDump(error, debugDump, turn.options.now());
}
