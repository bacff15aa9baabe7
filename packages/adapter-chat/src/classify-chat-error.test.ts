import { describe, expect, it } from 'vitest';
import { TurnError } from '@turnguard/core';
import { classifyChatError, classifyChatStreamError } from './classify-chat-error.js';

const openAiError = (message: string, type: string, code: string | null, param: string | null = null) =>
  JSON.stringify({ error: { message, type, param, code } });

describe('classifyChatError (R7.4)', () => {
  it('OpenAI context_length_exceeded (dimagi/open-chat-studio#463) → prompt_too_long, not retryable', () => {
    const error = classifyChatError(
      400,
      new Headers({ 'x-request-id': 'req_1' }),
      openAiError("This model's maximum context length is 8192 tokens. However, your messages resulted in 8202 tokens. Please reduce the length of the messages.", 'invalid_request_error', 'context_length_exceeded', 'messages'),
    );
    expect(error).toMatchObject({ kind: 'prompt_too_long', code: 'PROMPT_TOO_LONG', retryable: false, status: 400, requestId: 'req_1' });
  });

  it('a compatible server wording (vLLM "maximum context length") without the code → prompt_too_long', () => {
    const body = JSON.stringify({ object: 'error', message: 'This model’s maximum context length is 131072 tokens. However, you requested 140000 tokens (120000 input tokens and 20000 max_tokens)' });
    expect(classifyChatError(400, new Headers(), body).kind).toBe('prompt_too_long');
  });

  it('a 429 "Request too large … tokens per min" stays a retryable rate limit with its server-directed wait', () => {
    const error = classifyChatError(429, new Headers({ 'retry-after-ms': '1500' }), openAiError('Request too large for gpt-4 on tokens per min (TPM): Limit 10000, Requested 12000.', 'tokens', 'rate_limit_exceeded'));
    expect(error).toMatchObject({ kind: 'rate_limit', retryable: true, retryAfterMs: 1500 });
  });

  it('content filter → content_filter, never retried (R1.2)', () => {
    const error = classifyChatError(400, new Headers(), openAiError("The response was filtered due to the prompt triggering Azure OpenAI's content management policy.", 'invalid_request_error', 'content_filter'));
    expect(error).toMatchObject({ kind: 'content_filter', code: 'CONTENT_FILTER', retryable: false });
  });

  it('region refusal (unsupported_country_region_territory) → refused_region, never retried', () => {
    const error = classifyChatError(403, new Headers(), openAiError('Country, region, or territory not supported', 'request_forbidden', 'unsupported_country_region_territory'));
    expect(error).toMatchObject({ kind: 'refused_region', code: 'REFUSED_REGION', retryable: false, status: 403 });
  });

  it('media too large or of an unsupported format → media_too_large, not retried (R3.6)', () => {
    const cases: Array<[number, string]> = [
      [400, openAiError('Image too large.', 'invalid_request_error', 'image_too_large')],
      [400, openAiError('Image file too large.', 'invalid_request_error', 'image_file_too_large')],
      [400, openAiError("You uploaded an unsupported image. Please make sure your image has of one the following formats: ['png', 'jpeg', 'gif', 'webp'].", 'invalid_request_error', 'invalid_image_format')],
      [413, '<html><body>413 Request Entity Too Large</body></html>'],
      [400, JSON.stringify({ error: { message: 'messages.3.content.1.image.source.base64: image exceeds 5 MB maximum: 7340032 bytes > 5242880 bytes', code: 400 } })],
      [400, JSON.stringify({ error: { message: 'messages.12.content.1.image.source.base64.data: At least one of the image dimensions exceed max allowed size: 8000 pixels', code: 'invalid_request_body' } })],
    ];
    for (const [status, body] of cases) {
      expect(classifyChatError(status, new Headers(), body), body).toMatchObject({ kind: 'media_too_large', code: 'MEDIA_TOO_LARGE', retryable: false, status });
    }
    expect(classifyChatError(400, new Headers(), openAiError('Invalid value for messages.', 'invalid_request_error', null)).kind).toBe('invalid_request');
  });

  it('a body that is not JSON is still a typed error with its status', () => {
    const error = classifyChatError(502, new Headers(), '<html><body>Bad Gateway</body></html>');
    expect(TurnError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ kind: 'server', status: 502, retryable: true });
    const unauthorized = classifyChatError(401, new Headers(), 'nope');
    expect(unauthorized).toMatchObject({ kind: 'auth', status: 401, retryable: false });
  });

  it('x-should-retry overrides the status rule (R1.1)', () => {
    expect(classifyChatError(500, new Headers({ 'x-should-retry': 'false' }), '{}').retryable).toBe(false);
  });
});

describe('classifyChatStreamError (R7.4, in-stream)', () => {
  it('OpenAI server_error payload → retryable server error', () => {
    const error = classifyChatStreamError({ error: { message: 'The server had an error processing your request.', type: 'server_error', param: null, code: null } });
    expect(error).toMatchObject({ kind: 'server', retryable: true, status: undefined });
  });

  it('numeric codes (OpenRouter, compatible servers) act as an HTTP status', () => {
    expect(classifyChatStreamError({ error: { message: 'bad request', type: 'provider_error', param: null, code: 400 } })).toMatchObject({ kind: 'invalid_request', status: 400, retryable: false });
    expect(classifyChatStreamError({ error: { code: 502, message: 'upstream' } })).toMatchObject({ kind: 'server', status: 502 });
  });

  it('context overflow reported mid-stream → prompt_too_long', () => {
    expect(classifyChatStreamError({ error: { message: 'too long', type: 'invalid_request_error', code: 'context_length_exceeded' } }).kind).toBe('prompt_too_long');
  });
});
