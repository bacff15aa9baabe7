import { describe, expect, it } from 'vitest';
import { ERROR_KINDS, type ErrorKind } from './error-kind.js';
import { toAssistantErrorMessage } from './to-assistant-error-message.js';
import { TurnError } from './turn-error.js';

describe('toAssistantErrorMessage (R2.2)', () => {
  it('marks the message as an API error with kind, code and status', () => {
    const error = new TurnError({ kind: 'rate_limit', message: 'Rate limited', status: 429, requestId: 'req_9', retryAfterMs: 2500 });
    expect(toAssistantErrorMessage(error)).toEqual({
      role: 'assistant',
      content: [
        { type: 'text', text: 'API Error: Rate limit reached. Please wait a moment and try again. The provider asked to wait 3 seconds.' },
      ],
      isApiErrorMessage: true,
      apiError: { kind: 'rate_limit', code: 'RATE_LIMIT', status: 429 },
      errorDetails: 'RATE_LIMIT, status 429, request id req_9, retry after 2500 ms',
    });
  });

  it('omits an unknown status instead of inventing one', () => {
    const message = toAssistantErrorMessage(new TurnError({ kind: 'transport', message: 'socket hang up' }));
    expect(message.apiError).toEqual({ kind: 'transport', code: 'TRANSPORT' });
  });

  it('uses person-readable wording per kind', () => {
    const text = (kind: ErrorKind) => {
      const part = toAssistantErrorMessage(new TurnError({ kind, message: 'm' })).content[0];
      return part?.type === 'text' ? part.text : '';
    };
    expect(text('overloaded')).toContain('overloaded');
    expect(text('prompt_too_long')).toContain('Prompt is too long');
    expect(text('aborted')).toBe('API Error: Request interrupted by user.');
    for (const kind of Object.keys(ERROR_KINDS) as ErrorKind[]) {
      expect(text(kind)).toMatch(/^API Error: \S.{5,}/);
      expect(text(kind).length).toBeLessThan(160);
    }
  });

  it('keeps numeric and boolean details (token counts) but never request content', () => {
    const secret = 'please summarise my medical records';
    const error = new TurnError({
      kind: 'prompt_too_long',
      message: `prompt is too long: 187234 tokens > 200000 maximum; echoed: ${secret}`,
      status: 400,
      details: { actualTokens: 187234, limitTokens: 200000, strippedImages: true, upstreamMessage: secret, 'bad key!': 1 },
      cause: new Error(secret),
    });
    const message = toAssistantErrorMessage(error);
    expect(message.errorDetails).toBe('PROMPT_TOO_LONG, status 400, actualTokens=187234, limitTokens=200000, strippedImages=true');
    expect(JSON.stringify(message)).not.toContain('medical');
  });
});
