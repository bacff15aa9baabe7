import { describe, expect, it } from 'vitest';
import { classifyResponsesError, classifyResponsesStreamError } from './classify-responses-error.js';
import { mapResponsesFinishReason } from './map-responses-finish-reason.js';

const body = (error: Record<string, unknown>) => JSON.stringify({ error: { param: null, ...error } });

describe('classifyResponsesError: HTTP errors → R2 kinds (R7.4)', () => {
  it.each([
    [400, body({ code: 'context_length_exceeded', type: 'invalid_request_error', message: 'Your input exceeds the context window of this model.' }), 'prompt_too_long', false],
    [400, body({ code: 'content_policy_violation', type: 'invalid_request_error', message: 'flagged' }), 'content_filter', false],
    [403, body({ code: 'unsupported_country_region_territory', message: 'Country, region, or territory not supported' }), 'refused_region', false],
    [429, body({ code: 'rate_limit_exceeded', type: 'requests', message: 'Rate limit reached' }), 'rate_limit', true],
    [429, body({ code: 'insufficient_quota', type: 'insufficient_quota', message: 'You exceeded your current quota' }), 'rate_limit', false],
    [500, body({ code: 'server_error', type: 'server_error', message: 'The server had an error' }), 'server', true],
    [503, body({ message: 'The engine is currently overloaded, please try again later' }), 'overloaded', true],
    // A 529 with OpenAI's generic server_error body stays overloaded, so it counts toward the R1.9 fallback signal.
    [529, body({ code: 'server_error', type: 'server_error', message: 'overloaded' }), 'overloaded', true],
    [413, 'Request Entity Too Large', 'media_too_large', false],
    [401, body({ code: 'invalid_api_key', message: 'Incorrect API key provided' }), 'auth', false],
    [404, body({ code: 'model_not_found', message: 'no such model' }), 'invalid_request', false],
  ])('%i %s → %s', (status, text, kind, retryable) => {
    const error = classifyResponsesError(status, new Headers({ 'x-request-id': 'req_1' }), text);
    expect(error).toMatchObject({ name: 'TurnError', kind, retryable, status, requestId: 'req_1' });
  });

  it('keeps the status-based kind for a body that is not JSON (a proxy page)', () => {
    const error = classifyResponsesError(502, new Headers(), '<html>Bad gateway</html>');
    expect(error).toMatchObject({ kind: 'server', code: 'SERVER', retryable: true, status: 502 });
    expect(error.message).toMatch(/^HTTP 502/);
  });

  it('obeys x-should-retry over the status and reads retry-after-ms (R1.1, R1.3)', () => {
    const headers = new Headers({ 'x-should-retry': 'false', 'retry-after-ms': '1500' });
    const error = classifyResponsesError(429, headers, body({ code: 'rate_limit_exceeded', message: 'slow' }));
    expect(error).toMatchObject({ kind: 'rate_limit', retryable: false, retryAfterMs: 1500 });
  });
});

describe('classifyResponsesStreamError: in-stream failures (R7.4)', () => {
  it('classifies the nested error event of fixture openai-error.1', () => {
    const error = classifyResponsesStreamError(
      { type: 'error', sequence_number: 2, error: { type: 'insufficient_quota', code: 'insufficient_quota', message: 'You exceeded your current quota', param: null } },
      'error-event',
    );
    expect(error).toMatchObject({ kind: 'rate_limit', retryable: false, status: undefined, details: { upstreamCode: 'insufficient_quota' } });
  });

  it('reads the wait from a response.failed rate-limit message (codex "try again in")', () => {
    const error = classifyResponsesStreamError(
      { code: 'rate_limit_exceeded', message: 'Rate limit reached for gpt-5.1 … Please try again in 11.054s. Visit …' },
      'response-failed',
    );
    expect(error).toMatchObject({ kind: 'rate_limit', retryable: true, retryAfterMs: 11054 });
  });

  it('maps context_length_exceeded (even with a line break in the message) and unknown codes', () => {
    expect(classifyResponsesStreamError({ code: 'context_length_exceeded', message: 'Your input exceeds\nthe window' }, 'response-failed').kind).toBe('prompt_too_long');
    expect(classifyResponsesStreamError({ code: 'something_new', message: 'x' }, 'response-failed')).toMatchObject({ kind: 'server', retryable: true });
    expect(classifyResponsesStreamError(null, 'response-failed')).toMatchObject({ kind: 'server', message: 'Responses stream response-failed' });
  });
});

describe('mapResponsesFinishReason (R7.2)', () => {
  it.each([
    [{ status: 'completed', incompleteReason: undefined, hasToolCall: false }, { unified: 'stop', raw: 'completed' }],
    [{ status: 'completed', incompleteReason: undefined, hasToolCall: true }, { unified: 'tool-calls', raw: 'completed' }],
    [{ status: 'incomplete', incompleteReason: 'max_output_tokens', hasToolCall: true }, { unified: 'length', raw: 'max_output_tokens' }],
    [{ status: 'incomplete', incompleteReason: 'content_filter', hasToolCall: false }, { unified: 'content-filter', raw: 'content_filter' }],
    [{ status: 'failed', incompleteReason: undefined, hasToolCall: false }, { unified: 'error', raw: 'failed' }],
    [{ status: 'cancelled', incompleteReason: undefined, hasToolCall: false }, { unified: 'other', raw: 'cancelled' }],
  ])('%j → %j', (input, expected) => {
    expect(mapResponsesFinishReason(input)).toEqual(expected);
  });
});
