import type { AssistantMessage } from '../types/message.js';
import { readPairingTokens } from './attach-pairing-diagnostic.js';
import type { ErrorKind } from './error-kind.js';
import type { TurnError } from './turn-error.js';

/**
 * R2.2: an error as a pseudo assistant message, so it lives in the transcript
 * and downstream code can tell it from model output (`isApiErrorMessage`),
 * e.g. to skip stop hooks (R3.11).
 *
 * Privacy: `error.message` and `cause` are NOT used — an upstream error body
 * can echo request content. The text comes from the kind; `errorDetails` is
 * built only from content-free fields: code, status, request id, the
 * server-directed wait, and `details` entries whose values are numbers or
 * booleans (e.g. token counts of a prompt-too-long error). String details
 * (paths, upstream messages) are left out because their content is unknown.
 */
export function toAssistantErrorMessage(error: TurnError): AssistantMessage {
  const apiError: NonNullable<AssistantMessage['apiError']> = { kind: error.kind, code: error.code };
  if (error.status !== undefined) apiError.status = error.status;
  return {
    role: 'assistant',
    content: [{ type: 'text', text: describeErrorForPerson(error) }],
    isApiErrorMessage: true,
    apiError,
    errorDetails: describeSafeDetails(error),
  };
}

function describeErrorForPerson(error: TurnError): string {
  const base = `API Error: ${describeKind(error.kind)}`;
  if (error.kind === 'rate_limit' && error.retryAfterMs !== undefined) {
    return `${base} The provider asked to wait ${formatSeconds(error.retryAfterMs)}.`;
  }
  // R3.4: after the continuations ran out, say the limit was hit repeatedly.
  if (error.kind === 'max_output_tokens' && typeof error.details['continuations'] === 'number') {
    return 'API Error: The response repeatedly exceeded the output token limit.';
  }
  // R2.3: the shape around a rejected tool pairing, as role:type:id tokens (never content).
  const pairing = readPairingTokens(error);
  if (pairing !== undefined && pairing.length > 0) return `${base} Tool use/result pairing around the rejected id: ${pairing.join(' ')}`;
  return base;
}

function describeKind(kind: ErrorKind): string {
  switch (kind) {
    case 'rate_limit':
      return 'Rate limit reached. Please wait a moment and try again.';
    case 'overloaded':
      return 'The model is overloaded right now. Please try again shortly.';
    case 'server':
      return 'The provider had a server error. Please try again.';
    case 'transport':
      return 'Could not reach the provider (the connection failed).';
    case 'stream_cut':
      return 'The response was cut off before it finished.';
    case 'prompt_too_long':
      return 'Prompt is too long. Shorten or compact the conversation and try again.';
    case 'media_too_large':
      return 'An image or attachment is too large for the provider.';
    case 'max_output_tokens':
      return 'The response exceeded the output token limit.';
    case 'auth':
      return 'Authentication failed. Check your API key or credentials.';
    case 'invalid_request':
      return 'The provider rejected the request as invalid.';
    case 'content_filter':
      return "The response was blocked by the provider's content filter.";
    case 'refused_region':
      return 'The provider does not serve requests from this region.';
    case 'timeout':
      return 'The request timed out.';
    case 'aborted':
      return 'Request interrupted by user.';
    default: {
      const _exhaustive: never = kind;
      return `Unexpected error kind ${String(_exhaustive)}.`;
    }
  }
}

const SAFE_DETAIL_KEY = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

function describeSafeDetails(error: TurnError): string {
  const facts = [error.code];
  if (error.status !== undefined) facts.push(`status ${error.status}`);
  if (error.requestId !== undefined) facts.push(`request id ${error.requestId}`);
  if (error.retryAfterMs !== undefined) facts.push(`retry after ${error.retryAfterMs} ms`);
  for (const [key, value] of Object.entries(error.details)) {
    const isSafeValue = (typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean';
    if (isSafeValue && SAFE_DETAIL_KEY.test(key)) facts.push(`${key}=${String(value)}`);
  }
  const pairing = readPairingTokens(error);
  if (pairing !== undefined) facts.push(`pairing=[${pairing.join(' ')}]`);
  return facts.join(', ');
}

function formatSeconds(milliseconds: number): string {
  const seconds = Math.max(1, Math.ceil(milliseconds / 1000));
  return seconds === 1 ? '1 second' : `${seconds} seconds`;
}
