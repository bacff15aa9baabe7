import { TurnError } from './turn-error.js';
import type { ErrorKind } from './error-kind.js';
import { HttpErrorResponse } from './http-error-response.js';
import { readHeader, type HeadersLike } from '../retry/read-header.js';
import { parseRetryAfterMs } from '../retry/parse-retry-after.js';
import { parseRateLimitResetAt } from '../retry/parse-rate-limit-reset.js';
import { parseContextOverflowMessage } from '../retry/context-overflow.js';

export interface ClassifyHttpErrorOptions {
  /** Clock for HTTP-date and relative reset headers; defaults to `Date.now`. */
  now?: () => number;
}

/** Longest upstream message kept in `TurnError.message`. */
const MAX_MESSAGE_CHARS = 500;

/**
 * An HTTP error response → one TurnError (R2.1, R7.4). Generic: adapters call
 * it and then refine their provider's shapes (prompt-too-long, content filter…).
 *
 * Details hold only content-free facts: `errorType` (the body's
 * `error.type`/`error.code`), `rateLimitResetAt` (epoch ms, R1.11) and
 * `contextOverflow` (R1.8). The body itself stays in the `HttpErrorResponse` cause.
 */
export function classifyHttpError(
  status: number,
  headers: HeadersLike | undefined,
  bodyText: string,
  options: ClassifyHttpErrorOptions = {},
): TurnError {
  const nowMs = (options.now ?? Date.now)();
  const body = describeBody(bodyText);
  const kind = classifyStatus(status, body);
  const retryAfterMs = parseRetryAfterMs(headers, nowMs);
  const rateLimitResetAt =
    kind === 'rate_limit' || kind === 'overloaded' ? parseRateLimitResetAt(headers, nowMs) : undefined;
  const contextOverflow = status === 400 ? parseContextOverflowMessage(body.message) : undefined;

  const details: Record<string, unknown> = {};
  if (body.errorType !== undefined) details['errorType'] = body.errorType;
  if (rateLimitResetAt !== undefined) details['rateLimitResetAt'] = rateLimitResetAt;
  if (contextOverflow !== undefined) details['contextOverflow'] = contextOverflow;

  return new TurnError({
    kind,
    message: body.message === undefined ? `HTTP ${status}` : `HTTP ${status}: ${body.message}`,
    retryable: decideRetryable(status, headers),
    status,
    requestId: readHeader(headers, 'request-id') ?? readHeader(headers, 'x-request-id'),
    retryAfterMs,
    details,
    cause: new HttpErrorResponse(status, bodyText),
  });
}

/**
 * R1.1/R1.2 as a flat list, in the order of openai-node `shouldRetry`
 * (src/client.ts): the server's explicit `x-should-retry` wins over the status.
 */
function decideRetryable(status: number, headers: HeadersLike | undefined): boolean {
  // Not a standard header; OpenAI and Anthropic send it to say "do / don't retry this".
  const shouldRetry = readHeader(headers, 'x-should-retry')?.trim().toLowerCase();
  if (shouldRetry === 'true') return true;
  if (shouldRetry === 'false') return false;
  // Request timeout.
  if (status === 408) return true;
  // Lock timeout / conflict.
  if (status === 409) return true;
  // Rate limit.
  if (status === 429) return true;
  // Internal errors, including Anthropic's 529 overloaded.
  if (status >= 500) return true;
  return false;
}

function classifyStatus(status: number, body: ParsedBody): ErrorKind {
  // Anthropic names an overload in the body whatever the status; OpenAI sends 503 "overloaded".
  if (status === 529 || body.errorType === 'overloaded_error') return 'overloaded';
  if (status === 503 && /overload/i.test(body.message ?? '')) return 'overloaded';
  if (status === 429) return 'rate_limit';
  if (status === 401 || status === 403) return 'auth';
  if (status === 408 || status === 409 || status >= 500) return 'server';
  // 400, 404, 413 and every other status: the request itself is wrong (R1.2).
  return 'invalid_request';
}

interface ParsedBody {
  message: string | undefined;
  errorType: string | undefined;
}

/**
 * The message and type of the common error bodies: OpenAI
 * `{error:{message,type,code}}`, Anthropic `{type:'error',error:{type,message}}`,
 * and the `{message}` / `{error:'…'}` / `{detail}` of compatible servers.
 * A body that is not JSON (a proxy's HTML page) gives a short text snippet.
 */
function describeBody(bodyText: string): ParsedBody {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bodyText);
  } catch {
    const text = bodyText.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
    return { message: text === '' ? undefined : truncate(text), errorType: undefined };
  }
  const root = asRecord(parsed);
  const inner = asRecord(root?.['error']);
  const message =
    asText(inner?.['message']) ?? asText(root?.['error']) ?? asText(root?.['message']) ?? asText(root?.['detail']);
  // An SDK's APIError may hand us only the inner object (openai-node), whose own `type` is the error type.
  const rootType = asText(root?.['type']);
  const errorType =
    asText(inner?.['type']) ?? asText(inner?.['code']) ?? (rootType === 'error' ? undefined : rootType) ?? asText(root?.['code']);
  return { message: message === undefined ? undefined : truncate(message), errorType };
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function asText(value: unknown): string | undefined {
  if (typeof value === 'string' && value.trim() !== '') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

function truncate(text: string): string {
  return text.length <= MAX_MESSAGE_CHARS ? text : `${text.slice(0, MAX_MESSAGE_CHARS)}…`;
}
