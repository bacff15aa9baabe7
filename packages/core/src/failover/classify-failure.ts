import type { TurnError } from '../errors/turn-error.js';

/**
 * What a failed attempt means for fail-over (R11.2), read from the one
 * TurnError it ended with (R2.1). Content-free: only kinds, codes and fixed
 * patterns of provider messages are read.
 */
export type FailureClass =
  | 'aborted'
  /** A content filter or region refusal: the same answer from anyone (R1.2). */
  | 'content-filter'
  | 'auth'
  /** The prompt does not fit this model's window: a larger-context model is the usual next entry. */
  | 'context-length'
  /** R1.8's "input + max_tokens > limit": the same target with a smaller `max_tokens`. */
  | 'context-resize'
  /** The target refused an assistant prefill (R11.6). */
  | 'prefill-refused'
  | 'invalid-request'
  /** A connect, response-header or first-token time-out: the route is silent (R11.4). */
  | 'silent-route'
  | 'stall'
  | 'cut'
  | 'malformed'
  /** R1.9's fallback signal after consecutive overloads. */
  | 'fallback-signal'
  /** The whole turn's own limit (R4.7): nothing is left to spend on another target. */
  | 'turn-time-limit'
  /** 429, 5xx, overloaded, a connection that failed before any byte: worth another attempt (R1.1). */
  | 'transient'
  | 'final';

/**
 * The wording of a refused prefill, per server (decision 0401):
 * Anthropic 4.6+ "This model does not support assistant message prefill. The
 * conversation must end with a user message." and "Prefilling assistant
 * messages is not supported for this model."; Anthropic's older rule
 * "final assistant content cannot end with trailing whitespace"; llama.cpp
 * "Assistant response prefill is incompatible with enable_thinking."; vLLM's
 * `continue_final_message` with `add_generation_prompt`.
 */
const PREFILL_REFUSAL =
  /does not support assistant message prefill|prefilling assistant messages is not supported|assistant response prefill is incompatible|final assistant content cannot end with trailing whitespace|conversation must end with a user message|cannot set both `?continue_final_message`? and `?add_generation_prompt`?/i;

/** Whether an error is a target's refusal of an assistant prefill (R11.6). */
export function isPrefillRefusal(error: Pick<TurnError, 'kind' | 'message'>): boolean {
  return error.kind === 'invalid_request' && PREFILL_REFUSAL.test(error.message);
}

const SILENT_ROUTE_CODES: ReadonlySet<string> = new Set(['UPSTREAM_CONNECT_TIMEOUT', 'UPSTREAM_HEADERS_TIMEOUT', 'FIRST_TOKEN_TIMEOUT']);

/** What the caller knows about the attempt that the error alone does not say. */
export interface FailureContext {
  /** A 2xx response's headers arrived: a connection failure after this point is a cut body, not a refused connection. */
  responseStarted?: boolean;
}

/** R11.2's classes, checked most specific first (codes before kinds). */
export function classifyFailure(
  error: Pick<TurnError, 'kind' | 'code' | 'retryable' | 'message' | 'details'>,
  context: FailureContext = {},
): FailureClass {
  if (error.kind === 'aborted') return 'aborted';
  if (error.code === 'FALLBACK_TRIGGERED') return 'fallback-signal';
  if (SILENT_ROUTE_CODES.has(error.code)) return 'silent-route';
  if (error.code === 'STREAM_STALL') return 'stall';
  // A malformed record after output is reported as STREAM_CUT with the decoder's code beside it (R1.2).
  if (error.code === 'MALFORMED_CHUNK' || error.details['upstreamCode'] === 'MALFORMED_CHUNK') return 'malformed';
  if (error.kind === 'content_filter' || error.kind === 'refused_region') return 'content-filter';
  if (error.kind === 'auth') return 'auth';
  if (error.kind === 'prompt_too_long') return 'context-length';
  if (error.details['contextOverflow'] !== undefined) return 'context-resize';
  if (isPrefillRefusal(error)) return 'prefill-refused';
  if (error.kind === 'invalid_request' || error.kind === 'media_too_large') return 'invalid-request';
  if (error.kind === 'stream_cut') return 'cut';
  // R4.7's whole-turn limit (`TIMEOUT`); the per-attempt limits above have their own codes.
  if (error.kind === 'timeout') return 'turn-time-limit';
  // A body that opened and then ended or dropped with no output (R1.1) is a cut before output;
  // a connection refused or reset before any response is transient.
  if (error.kind === 'transport' && (error.details['emptyStream'] === true || context.responseStarted === true)) return 'cut';
  return error.retryable ? 'transient' : 'final';
}

/**
 * Whether a failure counts against the target's circuit (R11.5): the
 * upstream's own trouble (429, 5xx, overload, a dropped or silent
 * connection, a stall, a malformed stream), never the request's (a filter,
 * a bad request, a key, the prompt's length) nor the host's abort.
 */
export function countsAgainstCircuit(failure: FailureClass): boolean {
  switch (failure) {
    case 'transient':
    case 'silent-route':
    case 'stall':
    case 'cut':
    case 'malformed':
    case 'fallback-signal':
      return true;
    case 'aborted':
    case 'content-filter':
    case 'auth':
    case 'context-length':
    case 'context-resize':
    case 'prefill-refused':
    case 'invalid-request':
    case 'turn-time-limit':
    case 'final':
      return false;
    default: {
      const _exhaustive: never = failure;
      return _exhaustive;
    }
  }
}
