import { describe, expect, it } from 'vitest';
import { TurnError } from '@turnguard/core';
import { classifyMessagesError, classifyMessagesStreamError } from './classify-messages-error.js';

const body = (type: string, message: string) => JSON.stringify({ type: 'error', error: { type, message }, request_id: 'req_body' });

describe('classifyMessagesError (R7.4)', () => {
  it('529 and overloaded_error are overloaded and retryable', () => {
    const error = classifyMessagesError(529, new Headers({ 'request-id': 'req_1' }), JSON.stringify({ type: 'error', error: { details: null, type: 'overloaded_error', message: 'Overloaded' } }));
    expect([error.kind, error.code, error.retryable, error.status, error.requestId]).toEqual(['overloaded', 'OVERLOADED', true, 529, 'req_1']);
  });

  it('400 "prompt is too long" is prompt_too_long with the numbers, not retryable', () => {
    const error = classifyMessagesError(400, new Headers(), body('invalid_request_error', 'prompt is too long: 200251 tokens > 200000 maximum'));
    expect([error.kind, error.retryable]).toEqual(['prompt_too_long', false]);
    expect(error.details).toMatchObject({ promptTokens: 200251, maxPromptTokens: 200000 });
    expect(error.requestId).toBe('req_body');
  });

  it('R1.8: the context-overflow 400 carries details.contextOverflow for the retry layer', () => {
    const message = 'input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000, decrease input length or `max_tokens` and try again';
    const error = classifyMessagesError(400, new Headers(), body('invalid_request_error', message));
    expect(error.kind).toBe('invalid_request');
    expect(error.details['contextOverflow']).toEqual({ inputTokens: 199759, maxTokens: 8192, contextLimit: 200000 });
  });

  it('images that are too large, and the 413 request cap, are media_too_large', () => {
    const image = classifyMessagesError(400, new Headers(), body('invalid_request_error', 'messages.0.content.1.image.source.base64: image exceeds 5 MB maximum: 7340032 bytes > 5242880 bytes'));
    expect([image.kind, image.retryable]).toEqual(['media_too_large', false]);
    const tooLarge = classifyMessagesError(413, new Headers(), body('request_too_large', 'Request exceeds the maximum allowed number of bytes.'));
    expect(tooLarge.kind).toBe('media_too_large');
  });

  it('region refusals are refused_region and not retryable', () => {
    const error = classifyMessagesError(
      403,
      new Headers(),
      body('permission_error', 'Access to Anthropic models is not allowed from unsupported countries, regions, or territories.'),
    );
    expect([error.kind, error.retryable]).toEqual(['refused_region', false]);
  });

  it('keeps status kinds for the rest: 429 rate limit with retry-after, 401 auth, 500 server, x-should-retry wins', () => {
    const rate = classifyMessagesError(429, new Headers({ 'retry-after': '7' }), body('rate_limit_error', 'slow down'));
    expect([rate.kind, rate.retryable, rate.retryAfterMs]).toEqual(['rate_limit', true, 7000]);
    expect(classifyMessagesError(401, new Headers(), body('authentication_error', 'invalid x-api-key')).kind).toBe('auth');
    expect(classifyMessagesError(500, new Headers(), body('api_error', 'Internal server error')).kind).toBe('server');
    expect(classifyMessagesError(500, new Headers({ 'x-should-retry': 'false' }), body('api_error', 'x')).retryable).toBe(false);
  });

  it('a body that is not JSON still gives a typed error with its status', () => {
    const error = classifyMessagesError(502, new Headers(), '<html><body>Bad gateway</body></html>');
    expect(TurnError.isInstance(error)).toBe(true);
    expect([error.kind, error.status, error.retryable]).toEqual(['server', 502, true]);
    expect(classifyMessagesError(400, new Headers(), '').kind).toBe('invalid_request');
  });
});

describe('classifyMessagesStreamError', () => {
  it.each([
    ['overloaded_error', 'overloaded', true],
    ['api_error', 'server', true],
    ['rate_limit_error', 'rate_limit', true],
    ['invalid_request_error', 'invalid_request', false],
    ['something_new', 'server', true],
  ])('%s → %s', (type, kind, retryable) => {
    const error = classifyMessagesStreamError(JSON.stringify({ type: 'error', error: { type, message: 'm' } }));
    expect([error.kind, error.retryable, error.status, error.details['inStream']]).toEqual([kind, retryable, undefined, true]);
  });

  it('survives data that is not JSON', () => {
    expect(classifyMessagesStreamError('garbage').kind).toBe('server');
  });
});
