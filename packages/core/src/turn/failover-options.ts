import type { Protocol, ProtocolAdapter, UpstreamTarget } from '../adapter/protocol-adapter.js';
import { CircuitBreakers } from '../failover/circuit-breaker.js';
import type { ContinuationMode } from '../failover/decide-failover.js';
import { LIBRARY_RETRY_BUDGET, type RetryBudget } from '../failover/retry-budget.js';
import { resolveUpstreamTimeLimits, type UpstreamTimeLimitName, type UpstreamTimeLimitOptions, type UpstreamTimeLimits } from '../failover/upstream-time-limits.js';
import { rejectOption as rejectInvalidOption } from '../internal/reject-option.js';
import type { RetryOptions } from '../retry/with-retry.js';

/**
 * How a target takes an assistant prefill, the partial answer a continuation
 * goes on from (R11.6, decision 0401). A target without one never gets a
 * continuation: OpenAI's own Chat API and Responses have no prefill.
 * - `messages`: Anthropic Messages continues a final assistant message (Claude before 4.6, thinking off);
 * - `trailing-message`: a Chat server that continues a trailing assistant message (Groq, llama.cpp);
 * - `prefix-flag`: Chat with `"prefix": true` on that message (DeepSeek's beta base URL, Mistral);
 * - `continue-final-message`: vLLM's `continue_final_message: true` with `add_generation_prompt: false`.
 */
export type PrefillDialect = 'messages' | 'trailing-message' | 'prefix-flag' | 'continue-final-message';

const PREFILL_DIALECTS: readonly PrefillDialect[] = ['messages', 'trailing-message', 'prefix-flag', 'continue-final-message'];

/** One fallback of a runTurn chain (R11.1): its own adapter (maybe another protocol family), target and model. */
export interface FailoverTarget {
  /** Each target speaks its own native request type; methods are read bivariantly, so any adapter fits. */
  adapter: ProtocolAdapter<object>;
  target: UpstreamTarget;
  /** The model name sent to this target. */
  model: string;
  /** The upstream's name: its circuit key with the model (R11.5), and what records and events call it. */
  upstream: string;
  /** How this target takes a continuation's prefill; absent: it is never sent one (R11.6). */
  prefill?: PrefillDialect;
}

/** One destination of the chain, the host's own request first. */
export interface ChainDestination {
  adapter: ProtocolAdapter<object>;
  /** Undefined for the host's own target, which R1.7's credential refresh may replace while the turn runs. */
  target: UpstreamTarget | undefined;
  model: string;
  upstream: string;
  protocol: Protocol;
  prefill: PrefillDialect | undefined;
  /** 0: the host's own request; 1…: its fallbacks in order. */
  index: number;
}

/** runTurn's fail-over settings, checked and with their defaults (R11). */
export interface TurnChain {
  destinations: ChainDestination[];
  /** R11.4: each limit off (undefined) unless the host gave it. */
  timeLimits: UpstreamTimeLimits;
  budget: RetryBudget;
  continuation: ContinuationMode;
  circuitBreakers: CircuitBreakers | undefined;
  /** The host shows nothing until the turn ends (runTurn's `outputHeldUntilEnd`): a failed attempt's output is dropped, not kept (decision 0430). */
  outputHeldUntilEnd: boolean;
}

/** The runTurn options this module reads. */
export interface FailoverOptionsInput {
  adapter: ProtocolAdapter<object>;
  request: object;
  target: UpstreamTarget;
  targetAdapter?: ProtocolAdapter<object> | undefined;
  upstream?: string | undefined;
  prefill?: PrefillDialect | undefined;
  fallbacks?: readonly FailoverTarget[] | undefined;
  timeLimits?: UpstreamTimeLimitOptions | undefined;
  retryBudget?: RetryBudget | undefined;
  continuation?: ContinuationMode | undefined;
  circuitBreakers?: CircuitBreakers | undefined;
  retry?: RetryOptions | undefined;
  outputHeldUntilEnd?: boolean | undefined;
}

function reject(message: string, option: string): never {
  return rejectInvalidOption('INVALID_RUN_TURN_OPTION', message, option);
}

const TARGET_ADAPTER_METHODS = ['buildRequest', 'parseRequest', 'appendMessages', 'withToolsDisabled', 'withModel', 'withStreaming', 'buildHttpRequest', 'decodeStream', 'classifyError'] as const;

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

/** The host's upstream name when it gave none: the target's host (never its path or query, where a key may sit). */
function nameOfTarget(target: UpstreamTarget): string {
  try {
    return new URL(target.baseUrl).host || 'primary';
  } catch {
    return 'primary';
  }
}

function checkPrefill(value: unknown, option: string): PrefillDialect | undefined {
  if (value === undefined) return undefined;
  if (!PREFILL_DIALECTS.includes(value as PrefillDialect)) reject(`${option} must be one of ${PREFILL_DIALECTS.join(', ')}.`, option);
  return value as PrefillDialect;
}

function checkFallback(value: FailoverTarget, index: number): ChainDestination {
  const option = `fallbacks[${index}]`;
  if (typeof value !== 'object' || value === null) reject(`${option} must be an object.`, option);
  const adapter = value.adapter as unknown as Record<string, unknown> | undefined;
  if (typeof adapter !== 'object' || adapter === null) reject(`${option}.adapter is missing.`, `${option}.adapter`);
  for (const method of TARGET_ADAPTER_METHODS) {
    if (typeof adapter[method] !== 'function') reject(`${option}.adapter lacks ${method}().`, `${option}.adapter`);
  }
  if (!isNonEmptyString(value.target?.baseUrl)) reject(`${option}.target.baseUrl is missing.`, `${option}.target`);
  if (!isNonEmptyString(value.model)) reject(`${option}.model must be a model name.`, `${option}.model`);
  if (!isNonEmptyString(value.upstream)) reject(`${option}.upstream must name the upstream.`, `${option}.upstream`);
  return {
    adapter: value.adapter,
    target: value.target,
    model: value.model,
    upstream: value.upstream,
    protocol: value.adapter.protocol,
    prefill: checkPrefill(value.prefill, `${option}.prefill`),
    index: index + 1,
  };
}

const BUDGET_COUNTS = ['maxAttemptsPerTarget', 'failOverAfter'] as const;
const BUDGET_TIMES = ['initialDelayMs', 'maxDelayMs', 'factor', 'jitterRatio'] as const;

function checkBudget(budget: RetryBudget): RetryBudget {
  if (typeof budget !== 'object' || budget === null) reject('retryBudget must be an object (LIBRARY_RETRY_BUDGET, INTERACTIVE_RETRY_BUDGET or your own).', 'retryBudget');
  for (const key of BUDGET_COUNTS) {
    if (!Number.isInteger(budget[key]) || budget[key] < 1) reject(`retryBudget.${key} must be a whole number from 1, got ${JSON.stringify(budget[key])}.`, `retryBudget.${key}`);
  }
  for (const key of BUDGET_TIMES) {
    if (typeof budget[key] !== 'number' || !Number.isFinite(budget[key]) || budget[key] < 0) reject(`retryBudget.${key} must be a number from 0, got ${JSON.stringify(budget[key])}.`, `retryBudget.${key}`);
  }
  if (budget.failOverCounts !== 'overloads' && budget.failOverCounts !== 'retryable') reject('retryBudget.failOverCounts must be "overloads" or "retryable".', 'retryBudget.failOverCounts');
  return budget;
}

/**
 * R1.4's budget with the host's own retry numbers, for a chain whose host
 * gave no `retryBudget`: the same patience as a single target (R11.3: the
 * library keeps R1.4).
 */
function budgetFromRetryOptions(retry: RetryOptions): RetryBudget {
  const count = (value: number | undefined): number | undefined => (value !== undefined && Number.isFinite(value) && value >= 0 ? Math.floor(value) : undefined);
  const maxRetries = count(retry.maxRetries);
  const overloads = count(retry.overloadsBeforeFallback);
  return {
    ...LIBRARY_RETRY_BUDGET,
    ...(maxRetries === undefined ? {} : { maxAttemptsPerTarget: maxRetries + 1 }),
    ...(overloads === undefined ? {} : { failOverAfter: Math.max(1, overloads) }),
    ...(retry.initialDelayMs === undefined ? {} : { initialDelayMs: retry.initialDelayMs }),
    ...(retry.maxDelayMs === undefined ? {} : { maxDelayMs: retry.maxDelayMs }),
    ...(retry.jitterRatio === undefined ? {} : { jitterRatio: retry.jitterRatio }),
    ...(retry.maxServerWaitMs === undefined ? {} : { maxServerWaitMs: retry.maxServerWaitMs }),
  };
}

/** R11.4: only the limits the host gave are on (the library's default is no limit but R4.7's). */
function resolveGivenTimeLimits(given: UpstreamTimeLimitOptions | undefined): UpstreamTimeLimits {
  const resolved = resolveUpstreamTimeLimits(given ?? {});
  const limits = {} as { [K in UpstreamTimeLimitName]: number | undefined };
  for (const name of Object.keys(resolved) as UpstreamTimeLimitName[]) limits[name] = given?.[name] === undefined ? undefined : resolved[name];
  return limits;
}

/**
 * The fail-over chain of one runTurn call, or undefined when the host asked
 * for none of it: then segment 1 runs under R1's own retry loop, exactly as
 * before (decision 0406). Bad values throw a `TurnError` at call time.
 */
export function resolveTurnChain(options: FailoverOptionsInput): TurnChain | undefined {
  const { fallbacks, timeLimits, retryBudget, continuation, circuitBreakers, targetAdapter, outputHeldUntilEnd } = options;
  if (outputHeldUntilEnd !== undefined && typeof outputHeldUntilEnd !== 'boolean') reject('outputHeldUntilEnd must be true or false.', 'outputHeldUntilEnd');
  // A held turn restarts a failed attempt from scratch: only the chain's loop can (decision 0430).
  const wanted = fallbacks !== undefined || targetAdapter !== undefined || timeLimits !== undefined || retryBudget !== undefined || (continuation !== undefined && continuation !== 'off') || circuitBreakers !== undefined || outputHeldUntilEnd === true;
  if (!wanted) return undefined;
  if (fallbacks !== undefined && !Array.isArray(fallbacks)) reject('fallbacks must be an array of targets.', 'fallbacks');
  if (continuation !== undefined && continuation !== 'off' && continuation !== 'prefill') reject('continuation must be "off" or "prefill".', 'continuation');
  if (circuitBreakers !== undefined && !(circuitBreakers instanceof CircuitBreakers)) reject('circuitBreakers must be a CircuitBreakers instance.', 'circuitBreakers');
  if (options.upstream !== undefined && !isNonEmptyString(options.upstream)) reject('upstream must name the upstream.', 'upstream');
  const retry = options.retry ?? {};
  // A chain has one budget (R11.3); R1.11's unlimited waits and R1.9's signal to the host belong to a single target.
  if (retry.unattended === true) reject('retry.unattended is for a single target; with a chain the retry budget decides (R11.3).', 'retry.unattended');
  if (retry.fallbackModel !== undefined) reject('retry.fallbackModel raises R1.9\'s signal to the host; with a chain, list the fallback in fallbacks.', 'retry.fallbackModel');
  if (targetAdapter !== undefined) {
    for (const method of TARGET_ADAPTER_METHODS) {
      if (typeof (targetAdapter as unknown as Record<string, unknown>)[method] !== 'function') reject(`targetAdapter lacks ${method}().`, 'targetAdapter');
    }
  }
  const primaryAdapter = targetAdapter ?? options.adapter;
  const primary: ChainDestination = {
    adapter: primaryAdapter,
    target: undefined,
    model: readModel(options.adapter, options.request),
    upstream: options.upstream ?? nameOfTarget(options.target),
    protocol: primaryAdapter.protocol,
    prefill: checkPrefill(options.prefill, 'prefill'),
    index: 0,
  };
  return {
    destinations: [primary, ...(fallbacks ?? []).map(checkFallback)],
    timeLimits: resolveGivenTimeLimits(timeLimits),
    budget: retryBudget === undefined ? budgetFromRetryOptions(retry) : checkBudget(retryBudget),
    continuation: continuation ?? 'off',
    circuitBreakers,
    outputHeldUntilEnd: outputHeldUntilEnd === true,
  };
}

function readModel(adapter: ProtocolAdapter<object>, request: object): string {
  try {
    return adapter.getModel(request);
  } catch {
    return 'unknown';
  }
}
