import type { CircuitPermit } from '../failover/circuit-breaker.js';
import { countsAgainstCircuit, type FailureClass } from '../failover/classify-failure.js';
import { AttemptWatch } from './attempt-watch.js';
import { CROSS_FAMILY_REASONING_WARNING, buildTargetRequest } from './build-target-request.js';
import type { ChainRun } from './chain-run.js';
import type { ChainDestination } from './failover-options.js';
import type { AttemptPlan, AttemptRoute } from './run-attempt.js';
import type { Turn } from './turn.js';

// One destination of a chain: the request it gets, its circuit, and the plan of a request to it.

export interface DestinationRequest {
  native: object;
}

/**
 * The native request of each destination, built once per turn (R11.1):
 * `blockedBy` when another family cannot answer it faithfully. Thinking left
 * out of a cross-family request is one warning per turn (R4.11).
 */
export function requestsOf<Native extends object>(turn: Turn<Native>): (destination: ChainDestination) => DestinationRequest | { blockedBy: string[] } {
  const built = new Map<ChainDestination, DestinationRequest | { blockedBy: string[] }>();
  return (destination) => {
    let request = built.get(destination);
    if (request === undefined) {
      // The host's own request goes as it is unless its target speaks another family (`targetAdapter`).
      const asItIs = destination.index === 0 && destination.protocol === turn.options.adapter.protocol;
      const made = asItIs ? { native: turn.options.request, droppedReasoning: false } : buildTargetRequest(turn.options.adapter, turn.options.request, destination);
      if ('droppedReasoning' in made && made.droppedReasoning) turn.addWarning(CROSS_FAMILY_REASONING_WARNING);
      request = 'native' in made ? { native: made.native } : made;
      built.set(destination, request);
    }
    return request;
  };
}

/** The route and a fresh time-limit watch for one request to `destination` (R11.1, R11.4). */
export function attemptPlanFor<Native extends object>(turn: Turn<Native>, run: ChainRun, destination: ChainDestination): Pick<AttemptPlan<object>, 'route' | 'watch'> {
  const route: AttemptRoute = {
    adapter: destination.adapter,
    // The host's own target is read now: R1.7's refresh may have replaced its credentials.
    target: destination.target ?? turn.target,
    model: destination.model,
    upstream: destination.upstream,
    protocol: destination.protocol,
    fallbackFrom: run.fallbackFrom(destination),
  };
  return { route, watch: new AttemptWatch({ turnStop: () => turn.stopReason, now: turn.options.now, limits: run.chain.timeLimits }) };
}

/** Asks the destination's circuit for one request (R11.5): a permit, `none` (no breakers, or bypassed), or undefined when it refuses. */
export function admit(run: ChainRun, destination: ChainDestination, bypass: boolean): CircuitPermit | 'none' | undefined {
  const breakers = run.chain.circuitBreakers;
  if (breakers === undefined || bypass) return 'none';
  const admission = breakers.admit({ upstream: destination.upstream, model: destination.model });
  return admission.admitted ? admission.permit : undefined;
}

/** Tells the circuit how the request went: only the upstream's own trouble counts against it (R11.5). */
export function report(permit: CircuitPermit | 'none', failure: FailureClass | 'ok'): void {
  if (permit === 'none') return;
  if (failure === 'ok') permit.succeed();
  else if (countsAgainstCircuit(failure)) permit.fail();
  else permit.release();
}
