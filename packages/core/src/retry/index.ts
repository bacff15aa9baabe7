export {
  ExponentialBackoff,
  DEFAULT_INITIAL_DELAY_MS,
  DEFAULT_MAX_DELAY_MS,
  DEFAULT_BACKOFF_FACTOR,
  DEFAULT_JITTER_RATIO,
  type BackoffOptions,
} from './backoff.js';
export { readHeader, type HeadersLike } from './read-header.js';
export { parseRetryAfterMs } from './parse-retry-after.js';
export { parseRateLimitResetAt, parseGoDurationMs } from './parse-rate-limit-reset.js';
export { sleep, DEFAULT_HEARTBEAT_INTERVAL_MS, type SleepOptions, type HeartbeatEvent } from './sleep.js';
export {
  parseContextOverflowMessage,
  computeResizedMaxOutputTokens,
  readContextOverflow,
  MIN_RESIZED_MAX_OUTPUT_TOKENS,
  CONTEXT_OVERFLOW_SAFETY_TOKENS,
  type ContextOverflow,
} from './context-overflow.js';
export { FallbackSignal, FALLBACK_TRIGGERED } from './fallback-signal.js';
export { redactCredentials, REDACTED } from './redact-credentials.js';
export { createDebugDump, attachDebugDump, type DebugDump, type DebugDumpOptions } from './debug-dump.js';
export type { RetryReason } from './plan-retry.js';
export {
  withRetry,
  DEFAULT_MAX_RETRIES,
  DEFAULT_OVERLOADS_BEFORE_FALLBACK,
  DEFAULT_UNATTENDED_MAX_DELAY_MS,
  DEFAULT_UNATTENDED_MAX_TOTAL_MS,
  type AttemptContext,
  type RetryEvent,
  type RetryOptions,
} from './with-retry.js';
export { applyRefreshedCredentials, type RefreshedCredentials, type RefreshCredentialsHook } from './refreshed-credentials.js';
