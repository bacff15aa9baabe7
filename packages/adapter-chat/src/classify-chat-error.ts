import { TurnError, classifyHttpError, type ErrorKind, type FetchResponseHeaders } from '@turnguard/core';
import { isRecord } from './chat-wire-hints.js';

/**
 * Chat HTTP error response → TurnError (R7.4): core's generic rules
 * (status, x-should-retry, retry-after, request id: R1.1–R1.3, R2.1), then the
 * Chat-specific shapes found in the body.
 */
export function classifyChatError(status: number, headers: FetchResponseHeaders, bodyText: string): TurnError {
  const base = classifyHttpError(status, headers, bodyText);
  return refineChatError(base, readErrorObject(parseJson(bodyText)));
}

/**
 * An in-stream error payload (HTTP 200 already sent) → TurnError. openai-node
 * `Stream.fromSSEResponse` raises on any payload with a truthy `error`;
 * compatible servers send `{error:{code:<number>,…}}` (OpenRouter) or a bare
 * `{object:"error",message}` (vLLM, block/goose#8031) — wire-formats §1.5.
 */
export function classifyChatStreamError(payload: unknown): TurnError {
  const errorObject = readErrorObject(payload);
  const upstreamCode = errorObject?.code;
  const status =
    typeof upstreamCode === 'number' && upstreamCode >= 400 && upstreamCode <= 599 ? upstreamCode : undefined;
  const errorType = typeof errorObject?.type === 'string' ? errorObject.type : undefined;
  const codeText = typeof upstreamCode === 'string' ? upstreamCode : undefined;
  const message = typeof errorObject?.message === 'string' ? errorObject.message : 'upstream sent an error event';
  const kind = status !== undefined ? kindOfStatus(status) : kindOfStreamType(errorType, codeText, message);
  const base = new TurnError({
    kind,
    message: `in-stream error: ${message}`,
    status,
    details: { ...(errorType !== undefined && { errorType }), ...(codeText !== undefined && { errorCode: codeText }) },
    cause: payload,
  });
  return refineChatError(base, errorObject);
}

/** Provider shapes that outrank the status (wire-formats §4.4, §4.2). */
function refineChatError(base: TurnError, errorObject: Record<string, unknown> | undefined): TurnError {
  // A 413 often comes from a proxy in front of the server, with an HTML body.
  if (errorObject === undefined) return base.status === 413 ? asMediaTooLarge(base) : base;
  const code = typeof errorObject.code === 'string' ? errorObject.code : '';
  const type = typeof errorObject.type === 'string' ? errorObject.type : '';
  const message = typeof errorObject.message === 'string' ? errorObject.message : '';
  // A 429 "Request too large … tokens per min" is a rate limit, not an overflow: only refine non-429s.
  const mayBeOverflow = base.status !== 429;

  // OpenAI: code "context_length_exceeded", "This model's maximum context length is 8192 tokens…"
  // (dimagi/open-chat-studio#463); vLLM words it "maximum context length is … tokens" too.
  if (mayBeOverflow && (code === 'context_length_exceeded' || /maximum context length|context length exceeded|context window|prompt is too long/i.test(message))) {
    return base.with({ kind: 'prompt_too_long', code: 'PROMPT_TOO_LONG', retryable: false });
  }
  // OpenAI/Azure: code "content_filter" / "content_policy_violation"; R1.2: never retried.
  if (code === 'content_filter' || code === 'content_policy_violation' || /content[ _]filter|content (management )?policy/i.test(message)) {
    return base.with({ kind: 'content_filter', code: 'CONTENT_FILTER', retryable: false });
  }
  // OpenAI 403 "Country, region, or territory not supported" (wire-formats §4.2); R1.2: never retried.
  if (code === 'unsupported_country_region_territory' || /country, region,? or territory not supported/i.test(message)) {
    return base.with({ kind: 'refused_region', code: 'REFUSED_REGION', retryable: false });
  }
  if (isMediaTooLarge(base.status, code, message)) return asMediaTooLarge(base);
  if (code === 'insufficient_quota' || type === 'insufficient_quota') {
    return base.with({ code: 'INSUFFICIENT_QUOTA' });
  }
  return base;
}

/** OpenAI's image error codes (the Responses adapter maps the same ones) and an unsupported image format. */
const MEDIA_ERROR_CODES = new Set(['image_too_large', 'image_file_too_large', 'invalid_image_format']);

/**
 * Media the upstream refuses for its size or format (R3.6: the agent loop then
 * strips images and compacts). A 413 (the body was too large: a gateway or
 * proxy in front of a compatible server); OpenAI's codes; and the wording of
 * Chat-compatible proxies in front of Anthropic models (OpenRouter, Copilot:
 * "image exceeds 5 MB maximum", "image dimensions exceed max allowed size",
 * as in anthropics/claude-code#3334, #4778, microsoft/vscode#280486) and
 * OpenAI's "You uploaded an unsupported image".
 */
function isMediaTooLarge(status: number | undefined, code: string, message: string): boolean {
  if (status === 413 || MEDIA_ERROR_CODES.has(code)) return true;
  return /image exceeds \d+ ?MB maximum|image dimensions exceed max allowed size|uploaded an unsupported image/i.test(message);
}

function asMediaTooLarge(base: TurnError): TurnError {
  return base.with({ kind: 'media_too_large', code: 'MEDIA_TOO_LARGE', retryable: false });
}

function kindOfStatus(status: number): ErrorKind {
  if (status === 529 || status === 503) return 'overloaded';
  if (status === 429) return 'rate_limit';
  if (status === 401 || status === 403) return 'auth';
  if (status === 408 || status === 409 || status >= 500) return 'server';
  return 'invalid_request';
}

function kindOfStreamType(type: string | undefined, code: string | undefined, message: string): ErrorKind {
  const label = `${type ?? ''} ${code ?? ''}`;
  if (/overloaded/i.test(label) || /overloaded/i.test(message)) return 'overloaded';
  if (/rate_limit|insufficient_quota/i.test(label)) return 'rate_limit';
  if (/invalid_request/i.test(label)) return 'invalid_request';
  if (/authentication|permission/i.test(label)) return 'auth';
  // `server_error` and unknown types: the upstream failed mid-response.
  return 'server';
}

/** `{error:{…}}` (OpenAI, OpenRouter), `{error:"text"}`, or a bare `{object:"error",message}` (vLLM). */
function readErrorObject(payload: unknown): Record<string, unknown> | undefined {
  if (!isRecord(payload)) return undefined;
  if (isRecord(payload.error)) return payload.error;
  if (typeof payload.error === 'string') return { message: payload.error };
  if (payload.object === 'error' || typeof payload.message === 'string') return payload;
  return undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
