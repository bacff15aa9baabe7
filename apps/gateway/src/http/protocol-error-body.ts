import { toOpenAiErrorBody } from '@turnguard/adapter-chat';
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
      return { error: toOpenAiErrorBody(error) };
    case 'messages':
      return { type: 'error', error: { type: toMessagesErrorType(error.kind), message: error.message } };
    default: {
      const _exhaustive: never = protocol;
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
