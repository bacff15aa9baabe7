import { classifyHttpError, TurnError, type FetchResponseHeaders } from '@turnguard/core';
import { isRecord } from './messages-types.js';

/**
 * Anthropic error responses → R2 kinds (R7.4). Core's generic
 * `classifyHttpError` decides status kinds, retryability (x-should-retry
 * first), retry-after, request-id and the R1.8 `details.contextOverflow`;
 * this file refines the Messages-specific shapes on top of it.
 */

// "prompt is too long: 200251 tokens > 200000 maximum" (boldsoftware/exe.dev#62, wire-formats §4.4)
const PROMPT_TOO_LONG = /prompt is too long:\s*(\d+)\s*tokens\s*>\s*(\d+)\s*maximum/i;
// "image exceeds 5 MB maximum: 7340032 bytes > 5242880 bytes", "image dimensions exceed max allowed size",
// PDF page / size limits: the request only works again once the media is removed or shrunk (R3.6).
const MEDIA_TOO_LARGE =
  /image exceeds|image dimensions exceed|images? (?:is|are) too large|exceeds? .*maximum .*image|pdf .*(?:too large|exceeds?)|maximum of \d+ pdf pages/i;
// Anthropic / Bedrock: "Access to Anthropic models is not allowed from unsupported countries, regions, or
// territories"; OpenAI-style gateways: "Country, region, or territory not supported".
const REFUSED_REGION = /unsupported countr|country, region,? or territory not supported|unsupported_country_region_territory/i;

interface MessagesErrorBody {
  type: string | undefined;
  message: string;
  requestId: string | undefined;
}

function readErrorBody(bodyText: string): MessagesErrorBody {
  try {
    const parsed: unknown = JSON.parse(bodyText);
    const error = isRecord(parsed) && isRecord(parsed['error']) ? parsed['error'] : undefined;
    return {
      type: typeof error?.['type'] === 'string' ? error['type'] : undefined,
      message: typeof error?.['message'] === 'string' ? error['message'] : '',
      requestId: isRecord(parsed) && typeof parsed['request_id'] === 'string' ? parsed['request_id'] : undefined,
    };
  } catch {
    return { type: undefined, message: bodyText.slice(0, 500), requestId: undefined };
  }
}

/** HTTP error response of the Messages API → TurnError. `bodyText` is the raw body; it may be anything. */
export function classifyMessagesError(status: number, headers: FetchResponseHeaders, bodyText: string): TurnError {
  const generic = classifyHttpError(status, headers, bodyText);
  const body = readErrorBody(bodyText);
  // The body repeats the id as `request_id` when a proxy dropped the header.
  const base = generic.requestId === undefined && body.requestId !== undefined ? generic.with({ requestId: body.requestId }) : generic;

  const promptTooLong = PROMPT_TOO_LONG.exec(body.message);
  if (promptTooLong !== null) {
    return base.with({
      kind: 'prompt_too_long',
      code: 'PROMPT_TOO_LONG',
      retryable: false,
      details: { ...base.details, promptTokens: Number(promptTooLong[1]), maxPromptTokens: Number(promptTooLong[2]) },
    });
  }
  // 413 `request_too_large` is the 32 MB request cap, enforced before the API (wire-formats §4.2);
  // in practice only images and documents get a request that big, so it is treated as media.
  if (MEDIA_TOO_LARGE.test(body.message) || status === 413 || body.type === 'request_too_large') {
    return base.with({ kind: 'media_too_large', code: 'MEDIA_TOO_LARGE', retryable: false });
  }
  if (REFUSED_REGION.test(body.message)) {
    return base.with({ kind: 'refused_region', code: 'REFUSED_REGION', retryable: false });
  }
  return base;
}

/** The HTTP status each Anthropic `error.type` travels with (SDK src/resources/shared.ts, wire-formats §4.2). */
const STATUS_BY_ERROR_TYPE: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

/**
 * An in-stream `event: error` frame (HTTP 200 was already sent). Classified
 * as the response of the status its `error.type` stands for, but reported
 * without a status (there was no failing HTTP response) and marked `inStream`.
 * An unknown type counts as a server error.
 */
export function classifyMessagesStreamError(data: string): TurnError {
  const { type } = readErrorBody(data);
  const equivalentStatus = (type === undefined ? undefined : STATUS_BY_ERROR_TYPE[type]) ?? 500;
  const classified = classifyMessagesError(equivalentStatus, new Headers(), data);
  return classified.with({
    status: undefined,
    message: classified.message.replace(/^HTTP \d+: /, 'stream error: ').replace(/^HTTP \d+$/, 'stream error'),
    details: { ...classified.details, inStream: true },
  });
}

/**
 * A chunk of the stream that is not the JSON it must be: typed, never thrown
 * (R7.2). The parser's own error is not kept as `cause`: V8's JSON errors
 * quote the offending text, which may be model output (R4.10).
 */
export function createInvalidStreamDataError(eventName: string | undefined): TurnError {
  return new TurnError({
    kind: 'server',
    code: 'MALFORMED_CHUNK',
    message: `Messages stream: undecodable ${eventName ?? 'unnamed'} event`,
    details: { inStream: true },
  });
}
