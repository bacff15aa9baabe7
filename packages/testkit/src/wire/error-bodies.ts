import type { Protocol } from '@turnguard/core';
import type { HttpErrorSpec } from '../scenario/scenario.js';

/** OpenAI `error.type`/`error.code` per status (developers.openai.com/docs/guides/error-codes; wire-formats §4.2). */
function describeOpenAiStatus(status: number): { type: string; code: string | null; message: string } {
  if (status === 401) return { type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key provided.' };
  if (status === 403) {
    return { type: 'invalid_request_error', code: 'unsupported_country_region_territory', message: 'Country, region, or territory not supported' };
  }
  if (status === 404) return { type: 'invalid_request_error', code: null, message: 'The model does not exist or you do not have access to it.' };
  if (status === 429) return { type: 'requests', code: 'rate_limit_exceeded', message: 'Rate limit reached. Please try again later.' };
  if (status === 503) return { type: 'server_error', code: null, message: 'The engine is currently overloaded, please try again later' };
  if (status >= 500) return { type: 'server_error', code: null, message: 'The server had an error while processing your request.' };
  return { type: 'invalid_request_error', code: null, message: 'Invalid request.' };
}

/** Anthropic `error.type` per status (anthropic-sdk-typescript src/resources/shared.ts; docs.claude.com/en/api/errors). */
function describeAnthropicStatus(status: number): { type: string; message: string } {
  switch (status) {
    case 401:
      return { type: 'authentication_error', message: 'invalid x-api-key' };
    case 402:
      return { type: 'billing_error', message: 'Your credit balance is too low.' };
    case 403:
      return { type: 'permission_error', message: 'Your API key does not have permission to use the specified resource.' };
    case 404:
      return { type: 'not_found_error', message: 'Not found' };
    case 413:
      return { type: 'request_too_large', message: 'Request exceeds the maximum allowed number of bytes.' };
    case 429:
      return { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit' };
    case 504:
      return { type: 'timeout_error', message: 'Request timed out' };
    case 529:
      return { type: 'overloaded_error', message: 'Overloaded' };
    default:
      return status >= 500
        ? { type: 'api_error', message: 'Internal server error' }
        : { type: 'invalid_request_error', message: 'Invalid request.' };
  }
}

/** `{"error":{message,type,param,code}}` — OpenAI Chat and Responses. */
export function makeOpenAiErrorBody(status: number, spec: Pick<HttpErrorSpec, 'type' | 'code' | 'message'>): unknown {
  const defaults = describeOpenAiStatus(status);
  return {
    error: {
      message: spec.message ?? defaults.message,
      type: spec.type ?? defaults.type,
      param: null,
      code: spec.code ?? defaults.code,
    },
  };
}

/** `{"type":"error","error":{type,message},"request_id"}` — Anthropic Messages. */
export function makeAnthropicErrorBody(
  status: number,
  spec: Pick<HttpErrorSpec, 'type' | 'message'>,
  requestId: string,
): unknown {
  const defaults = describeAnthropicStatus(status);
  return {
    type: 'error',
    error: { type: spec.type ?? defaults.type, message: spec.message ?? defaults.message },
    request_id: requestId,
  };
}

export function makeHttpErrorBody(protocol: Protocol, spec: HttpErrorSpec, requestId: string): unknown {
  if (spec.body !== undefined) return spec.body;
  return protocol === 'messages'
    ? makeAnthropicErrorBody(spec.status, spec, requestId)
    : makeOpenAiErrorBody(spec.status, spec);
}

/** The request-id header each vendor uses (openai-node `x-request-id`, anthropic `request-id`). */
export function getRequestIdHeaderName(protocol: Protocol): string {
  return protocol === 'messages' ? 'request-id' : 'x-request-id';
}
