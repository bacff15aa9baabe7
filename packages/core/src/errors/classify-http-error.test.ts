import { describe, expect, it } from 'vitest';
import { classifyHttpError } from './classify-http-error.js';
import { readHttpErrorBody } from './http-error-response.js';

const anthropicBody = (type: string, message: string): string =>
  JSON.stringify({ type: 'error', error: { type, message } });
const openaiBody = (type: string, message: string, code: string | null = null): string =>
  JSON.stringify({ error: { message, type, param: null, code } });

describe('classifyHttpError (R2.1, R1.1, R1.2)', () => {
  it('R2.1 429 → rate_limit, retryable, with request id and exact retry-after-ms', () => {
    const error = classifyHttpError(
      429,
      new Headers({ 'retry-after-ms': '1234', 'retry-after': '9', 'x-request-id': 'req_abc' }),
      openaiBody('requests', 'Rate limit reached for gpt-4o', 'rate_limit_exceeded'),
    );
    expect([error.kind, error.code, error.retryable, error.status]).toEqual(['rate_limit', 'RATE_LIMIT', true, 429]);
    expect([error.retryAfterMs, error.requestId]).toEqual([1234, 'req_abc']);
    expect(error.message).toBe('HTTP 429: Rate limit reached for gpt-4o');
    expect(error.details).toEqual({ errorType: 'requests' });
  });

  it('R2.1 529 → overloaded with Anthropic request-id; body stays in the cause only', () => {
    const body = anthropicBody('overloaded_error', 'Overloaded');
    const error = classifyHttpError(529, { 'request-id': 'req_011' }, body);
    expect([error.kind, error.code, error.retryable, error.requestId]).toEqual(['overloaded', 'OVERLOADED', true, 'req_011']);
    expect(readHttpErrorBody(error)).toBe(body);
    expect(JSON.stringify(error.details)).not.toContain('Overloaded');
  });

  it('R2.1 503 is overloaded when the body says so, otherwise server', () => {
    expect(classifyHttpError(503, undefined, openaiBody('server_error', 'The engine is currently overloaded')).kind).toBe('overloaded');
    expect(classifyHttpError(503, undefined, '<html><body>Service Unavailable</body></html>').kind).toBe('server');
  });

  it.each([408, 409, 500, 502, 504])('R1.1 %i → server, retryable', (status) => {
    const error = classifyHttpError(status, undefined, '');
    expect([error.kind, error.retryable, error.message]).toEqual(['server', true, `HTTP ${status}`]);
  });

  it.each([
    [401, 'auth'],
    [403, 'auth'],
    [400, 'invalid_request'],
    [404, 'invalid_request'],
    [413, 'invalid_request'],
    [422, 'invalid_request'],
  ])('R1.2 %i → %s, not retryable', (status, kind) => {
    const error = classifyHttpError(status, undefined, anthropicBody('invalid_request_error', 'bad'));
    expect([error.kind, error.retryable]).toEqual([kind, false]);
  });

  it('R1.1 x-should-retry overrides the status rule first (openai-node shouldRetry)', () => {
    expect(classifyHttpError(400, new Headers({ 'x-should-retry': 'true' }), '').retryable).toBe(true);
    const noRetry = classifyHttpError(503, new Headers({ 'x-should-retry': 'false' }), '');
    expect([noRetry.kind, noRetry.retryable]).toEqual(['server', false]);
    expect(classifyHttpError(429, new Headers({ 'x-should-retry': 'false' }), '').retryable).toBe(false);
  });

  it('R1.3 retry-after as an HTTP-date becomes the exact wait from now', () => {
    const now = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');
    const error = classifyHttpError(429, { 'Retry-After': 'Wed, 21 Oct 2015 07:28:07 GMT' }, '', { now: () => now });
    expect(error.retryAfterMs).toBe(7000);
  });

  it('R1.8 an Anthropic context overflow 400 carries its numbers', () => {
    const error = classifyHttpError(
      400,
      undefined,
      anthropicBody(
        'invalid_request_error',
        'input length and `max_tokens` exceed context limit: 188059 + 20000 > 200000, decrease input length or `max_tokens` and try again',
      ),
    );
    expect([error.kind, error.retryable]).toEqual(['invalid_request', false]);
    expect(error.details['contextOverflow']).toEqual({ inputTokens: 188059, maxTokens: 20000, contextLimit: 200000 });
  });

  it('R1.11 rate-limit reset headers land in details.rateLimitResetAt', () => {
    const error = classifyHttpError(
      429,
      { 'anthropic-ratelimit-unified-reset': '1700000000' },
      anthropicBody('rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit'),
    );
    expect(error.details).toEqual({ errorType: 'rate_limit_error', rateLimitResetAt: 1_700_000_000_000 });
  });

  it('never crashes on odd bodies and keeps the message short', () => {
    expect(classifyHttpError(500, undefined, 'null').message).toBe('HTTP 500');
    expect(classifyHttpError(500, undefined, '[1,2]').message).toBe('HTTP 500');
    expect(classifyHttpError(500, undefined, JSON.stringify({ error: 'boom' })).message).toBe('HTTP 500: boom');
    expect(classifyHttpError(502, undefined, 'x'.repeat(5000)).message.length).toBeLessThan(520);
  });
});
