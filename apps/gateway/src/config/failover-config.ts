import {
  CIRCUIT_BREAKER_DEFAULTS,
  INTERACTIVE_RETRY_BUDGET,
  UPSTREAM_TIME_LIMIT_DEFAULTS,
  TurnError,
  resolveUpstreamTimeLimits,
  type CircuitBreakerOptions,
  type ContinuationMode,
  type RetryBudget,
  type UpstreamTimeLimitOptions,
} from '@turnguard/core';

/**
 * The gateway's fail-over settings (R11.3–R11.6): configuration over
 * runTurn's chain. Its defaults fit the interactive client in front of it
 * (decision 0406): `INTERACTIVE_RETRY_BUDGET`, decision 0400's time limits,
 * Envoy-like circuits, no continuation unless asked.
 */
export interface FailoverSettings {
  /** R11.4: per-request limits (a key `false`: that limit off; the whole object `false`: all off). */
  timeLimits: UpstreamTimeLimitOptions;
  /** R11.5: one breaker per upstream and model in this process; `false`: none. */
  circuitBreaker: false | Required<Omit<CircuitBreakerOptions, 'now' | 'onStateChange'>>;
  /** R11.6: `prefill` sends one continuation after an answer was cut mid-text. */
  continuation: ContinuationMode;
}

/** The `retry` keys, R1.4's names kept; the last three are R11.3's. */
export interface GatewayRetrySettings {
  maxRetries?: number;
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** With a fallback: this many consecutive retryable failures move on (default 3). */
  failOverAfter?: number;
  /** No retry starts later than this after the turn's first request (default 20 000). */
  retryWindowMs?: number;
  /** A Retry-After longer than this is not waited for (default 15 000). */
  maxServerWaitMs?: number;
  /** Never more than `burstAttempts` requests (default 4) in the turn's first `burstWindowMs` (default 3000; 0: no such rule). */
  burstAttempts?: number;
  burstWindowMs?: number;
}

export const RETRY_KEYS = new Set(['maxRetries', 'initialDelayMs', 'maxDelayMs', 'failOverAfter', 'retryWindowMs', 'maxServerWaitMs', 'burstAttempts', 'burstWindowMs']);

export const DEFAULT_FAILOVER_SETTINGS: FailoverSettings = {
  timeLimits: { ...UPSTREAM_TIME_LIMIT_DEFAULTS },
  circuitBreaker: { ...CIRCUIT_BREAKER_DEFAULTS },
  continuation: 'off',
};

export const FAILOVER_KEYS = ['timeLimits', 'circuitBreaker', 'continuation'] as const;

function reject(message: string, option: string): never {
  throw new TurnError({ kind: 'invalid_request', code: 'GATEWAY_INVALID_CONFIG', retryable: false, message, details: { option } });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `false` turns every limit off; an object lays its keys over the defaults, core checks them (INVALID_UPSTREAM_TIME_LIMIT). */
function readTimeLimits(value: unknown): UpstreamTimeLimitOptions {
  if (value === false) return { connectMs: false, responseHeadersMs: false, firstTokenMs: false, stallBeforeOutputMs: false, stallAfterOutputMs: false };
  if (!isPlainObject(value)) reject('timeLimits must be false or an object of limits in milliseconds.', 'timeLimits');
  const given = value as UpstreamTimeLimitOptions;
  resolveUpstreamTimeLimits(given);
  return { ...UPSTREAM_TIME_LIMIT_DEFAULTS, ...given };
}

const CIRCUIT_KEYS = ['failureThreshold', 'coolDownMs', 'maxCoolDownMs'] as const;

function readCircuitBreaker(value: unknown): FailoverSettings['circuitBreaker'] {
  if (value === false) return false;
  if (!isPlainObject(value)) reject('circuitBreaker must be false or an object.', 'circuitBreaker');
  const settings = { ...CIRCUIT_BREAKER_DEFAULTS } as { -readonly [K in (typeof CIRCUIT_KEYS)[number]]: number };
  for (const [key, given] of Object.entries(value)) {
    if (!(CIRCUIT_KEYS as readonly string[]).includes(key)) reject(`Unknown option "circuitBreaker.${key}". Known: ${CIRCUIT_KEYS.join(', ')}.`, `circuitBreaker.${key}`);
    if (typeof given !== 'number' || !Number.isInteger(given) || given < 1 || given > 86_400_000) {
      reject(`circuitBreaker.${key} must be a whole number from 1, got ${JSON.stringify(given)}.`, `circuitBreaker.${key}`);
    }
    settings[key as (typeof CIRCUIT_KEYS)[number]] = given;
  }
  return settings;
}

/** The fail-over keys of merged config layers, validated over the defaults. */
export function resolveFailoverSettings(merged: Record<string, unknown>): FailoverSettings {
  const settings: FailoverSettings = { ...DEFAULT_FAILOVER_SETTINGS };
  if (merged.timeLimits !== undefined) settings.timeLimits = readTimeLimits(merged.timeLimits);
  if (merged.circuitBreaker !== undefined) settings.circuitBreaker = readCircuitBreaker(merged.circuitBreaker);
  if (merged.continuation !== undefined) {
    if (merged.continuation !== 'off' && merged.continuation !== 'prefill') reject('continuation must be "off" or "prefill".', 'continuation');
    settings.continuation = merged.continuation;
  }
  return settings;
}

/**
 * R11.3: the budget a turn gets — the interactive one, with the `retry` keys
 * laid over it (`maxRetries` counts retries, so attempts are one more).
 */
export function buildRetryBudget(retry: GatewayRetrySettings): RetryBudget {
  return {
    ...INTERACTIVE_RETRY_BUDGET,
    ...(retry.maxRetries === undefined ? {} : { maxAttemptsPerTarget: retry.maxRetries + 1 }),
    ...(retry.initialDelayMs === undefined ? {} : { initialDelayMs: retry.initialDelayMs }),
    ...(retry.maxDelayMs === undefined ? {} : { maxDelayMs: retry.maxDelayMs }),
    ...(retry.failOverAfter === undefined ? {} : { failOverAfter: retry.failOverAfter }),
    ...(retry.retryWindowMs === undefined ? {} : { retryWindowMs: retry.retryWindowMs }),
    ...(retry.maxServerWaitMs === undefined ? {} : { maxServerWaitMs: retry.maxServerWaitMs }),
    ...burstOf(retry),
  };
}

function burstOf(retry: GatewayRetrySettings): Pick<RetryBudget, 'burst'> | Record<string, never> {
  if (retry.burstAttempts === undefined && retry.burstWindowMs === undefined) return {};
  const defaults = INTERACTIVE_RETRY_BUDGET.burst!;
  const windowMs = retry.burstWindowMs ?? defaults.windowMs;
  return { burst: windowMs === 0 ? undefined : { attempts: retry.burstAttempts ?? defaults.attempts, windowMs } };
}
