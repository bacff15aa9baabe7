import { classifyHttpError, ERROR_KINDS, TurnError, type ErrorKind, type FetchResponseHeaders } from '@turnguard/core';
import { isJsonObject, readString, type JsonObject } from './native-json.js';

const MAX_MESSAGE_CHARS = 500;

interface UpstreamError {
  code: string | undefined;
  type: string | undefined;
  message: string | undefined;
}

/**
 * An HTTP error response from `/v1/responses` → TurnError (R7.4): the generic
 * status rules, refined by the OpenAI error body `{error:{message,type,param,code}}`
 * (wire-formats §4.1). A body that is not JSON keeps the status-based kind.
 */
export function classifyResponsesError(status: number, headers: FetchResponseHeaders, bodyText: string): TurnError {
  // Core's generic rules first (status, x-should-retry, retry-after, request id,
  // raw body kept as `cause`), then this provider's body shapes.
  const base = classifyHttpError(status, headers, bodyText);
  const upstream = readUpstreamError(parseJson(bodyText));
  const message = upstream.message === undefined ? base.message : `HTTP ${status}: ${truncate(upstream.message)}`;
  const details = { ...base.details, ...describeUpstream(upstream) };
  const kind = refineKind(upstream, status);
  if (kind === undefined) return base.with({ message, details });
  const shouldRetry = headers.get('x-should-retry')?.trim().toLowerCase();
  const retryable = shouldRetry === 'true' ? true : shouldRetry === 'false' ? false : decideRefinedRetryable(kind, upstream, base);
  return base.with({ kind, code: ERROR_KINDS[kind], retryable, message, details });
}

/**
 * An in-stream failure → TurnError (R7.4): the `error` event (nested
 * `{error:{type,code,message,param}}` as recorded in fixture `openai-error.1`,
 * or the flat SDK `ResponseErrorEvent` shape) or the `error` of a
 * `response.failed` response (`{code,message}`). No HTTP status: it is 200.
 */
export function classifyResponsesStreamError(payload: unknown, source: 'error-event' | 'response-failed'): TurnError {
  const upstream = readUpstreamError(payload);
  const kind = refineKind(upstream, undefined) ?? 'server';
  const retryAfterMs = kind === 'rate_limit' ? parseTryAgainInMs(upstream.message) : undefined;
  return new TurnError({
    kind,
    message: upstream.message === undefined ? `Responses stream ${source}` : truncate(upstream.message),
    retryable: decideRefinedRetryable(kind, upstream, undefined),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    details: { ...describeUpstream(upstream), source },
  });
}

function refineKind(upstream: UpstreamError, status: number | undefined): ErrorKind | undefined {
  const code = upstream.code ?? upstream.type;
  const message = upstream.message ?? '';
  // codex matches the code, not the text, which can contain line breaks (wire-formats §4.4).
  if (code === 'context_length_exceeded' || /context (window|length)/i.test(message)) return 'prompt_too_long';
  if (code === 'content_filter' || code === 'content_policy_violation') return 'content_filter';
  // OpenAI 403 "Country, region, or territory not supported" (wire-formats §4.2).
  if (code === 'unsupported_country_region_territory' || /country, region, or territory not supported/i.test(message)) {
    return 'refused_region';
  }
  if (code === 'image_too_large' || code === 'image_file_too_large' || status === 413) return 'media_too_large';
  if (code === 'rate_limit_exceeded' || code === 'insufficient_quota') return 'rate_limit';
  // With an HTTP status the generic classifier already decided (529/503 →
  // overloaded, which counts toward the R1.9 fallback signal); the body's
  // generic `server_error` type must not downgrade that.
  if (code === 'server_error') return status === undefined ? 'server' : undefined;
  if (code === 'vector_store_timeout') return 'timeout';
  if (code === 'invalid_prompt' || code === 'invalid_request_error') return status === undefined ? 'invalid_request' : undefined;
  return undefined;
}

function decideRefinedRetryable(kind: ErrorKind, upstream: UpstreamError, base: TurnError | undefined): boolean {
  // An exhausted quota does not refill by retrying; codex treats it as fatal
  // (codex-rs/codex-api/src/sse/responses.rs). See docs/decisions/0051.
  if ((upstream.code ?? upstream.type) === 'insufficient_quota') return false;
  if (kind === 'rate_limit' || kind === 'server' || kind === 'overloaded') return base?.retryable ?? true;
  return false;
}

function readUpstreamError(payload: unknown): UpstreamError {
  const root: JsonObject = isJsonObject(payload) ? payload : {};
  // Nested `{error:{…}}` (real streams, HTTP bodies) or flat `{code,message}` (SDK types).
  const inner = isJsonObject(root.error) ? root.error : root;
  const rootType = readString(root.type);
  return {
    code: readString(inner.code),
    type: readString(inner.type) ?? (rootType === 'error' ? undefined : rootType),
    message: readString(inner.message),
  };
}

function describeUpstream(upstream: UpstreamError): Record<string, unknown> {
  return {
    ...(upstream.code !== undefined ? { upstreamCode: upstream.code } : {}),
    ...(upstream.type !== undefined ? { upstreamType: upstream.type } : {}),
  };
}

/** "Please try again in 11.054s." (codex: `(?i)try again in\s*(\d+(?:\.\d+)?)\s*(s|ms|seconds?)`). */
function parseTryAgainInMs(message: string | undefined): number | undefined {
  const match = /try again in\s*(\d+(?:\.\d+)?)\s*(ms|s|seconds?)\b/i.exec(message ?? '');
  if (match?.[1] === undefined) return undefined;
  const value = Number.parseFloat(match[1]);
  return match[2]?.toLowerCase() === 'ms' ? value : Math.round(value * 1000);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function truncate(text: string): string {
  return text.length <= MAX_MESSAGE_CHARS ? text : `${text.slice(0, MAX_MESSAGE_CHARS)}…`;
}
