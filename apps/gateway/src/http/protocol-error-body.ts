import { toMessagesErrorType } from '@turnguard/adapter-messages';
import { TurnError, type ErrorKind, type Protocol } from '@turnguard/core';

/**
 * Error bodies in each protocol's own shape, so the official SDKs raise
 * their usual APIError with a readable message:
 * - OpenAI (Chat, Responses): `{ error: { message, type, param, code } }`
 *   (openai-node src/core/error.ts reads `error.message`/`type`/`code`);
 * - Anthropic (Messages): `{ type: 'error', error: { type, message } }`
 *   (anthropic-sdk-typescript src/resources/shared.ts ErrorObject).
 */
export function buildErrorBody(protocol: Protocol, error: TurnError): Record<string, unknown> {
  switch (protocol) {
    case 'chat':
    case 'responses':
      return { error: { message: error.message, type: openAiErrorType(error.kind), param: null, code: error.code } };
    case 'messages':
      return { type: 'error', error: { type: toMessagesErrorType(error.kind), message: error.message } };
    default: {
      const _exhaustive: never = protocol;
      return _exhaustive;
    }
  }
}

/** OpenAI's `error.type` vocabulary (wire-formats §1.5). */
function openAiErrorType(kind: ErrorKind): string {
  switch (kind) {
    case 'invalid_request':
    case 'prompt_too_long':
    case 'media_too_large':
    case 'max_output_tokens':
    case 'content_filter':
      return 'invalid_request_error';
    case 'auth':
      return 'authentication_error';
    case 'refused_region':
      return 'permission_error';
    case 'rate_limit':
      return 'rate_limit_error';
    case 'overloaded':
    case 'server':
    case 'transport':
    case 'stream_cut':
    case 'timeout':
    case 'aborted':
      return 'server_error';
    default: {
      const _exhaustive: never = kind;
      return _exhaustive;
    }
  }
}

/**
 * The HTTP status of a final failure answered as JSON. An upstream 4xx that
 * came back before any output is passed through (the host's own request was
 * wrong, or its credentials); every other final failure — a cut stream, a
 * recovery that failed, exhausted 5xx retries, a time limit — is 502 (R8.3),
 * even when partial text had arrived.
 */
export function selectFailureStatus(error: TurnError): number {
  if (error.kind === 'stream_cut') return 502;
  const status = error.status;
  if (status !== undefined && status >= 400 && status < 500) return status;
  return 502;
}

/** A gateway-side rejection of the client's own request (never sent upstream). */
export function createClientError(status: number, code: string, message: string, kind: ErrorKind = 'invalid_request'): TurnError {
  return new TurnError({ kind, code, message, status, retryable: false });
}
