export {
  UPSTREAM_TIME_LIMIT_DEFAULTS,
  UPSTREAM_TIME_LIMIT_CODES,
  resolveUpstreamTimeLimits,
  pickUpstreamTimeLimit,
  createUpstreamTimeLimitError,
  type UpstreamTimeLimitName,
  type UpstreamTimeLimitOptions,
  type UpstreamTimeLimits,
  type AttemptPhase,
} from './upstream-time-limits.js';
export { classifyFailure, countsAgainstCircuit, isPrefillRefusal, type FailureClass, type FailureContext } from './classify-failure.js';
export {
  LIBRARY_RETRY_BUDGET,
  INTERACTIVE_RETRY_BUDGET,
  planBudgetedRetry,
  computeBackoffDelayMs,
  computeBurstDelayMs,
  type RetryBudget,
  type RetryHistory,
  type BudgetVerdict,
} from './retry-budget.js';
export {
  decideFailover,
  type FailoverInput,
  type FailoverDecision,
  type FailoverReason,
  type DeliveredOutput,
  type ContinuationMode,
} from './decide-failover.js';
export {
  CircuitBreakers,
  CIRCUIT_BREAKER_DEFAULTS,
  type CircuitState,
  type CircuitKey,
  type CircuitStateChange,
  type CircuitBreakerOptions,
  type CircuitPermit,
  type CircuitAdmission,
} from './circuit-breaker.js';
export { findCrossFamilyBlockers } from './find-cross-family-blockers.js';
