import { describe, expect, it } from 'vitest';
import { REDACTED, redactCredentials } from './redact-credentials.js';

describe('redactCredentials (R1.10)', () => {
  it('R1.10 drops credential keys at any depth and keeps the request shape', () => {
    const request = {
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      headers: { Authorization: 'Bearer abc', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
      apiKey: 'k2',
      nested: [{ client_secret: 's', access_token: 't', input_tokens: 3 }],
      messages: [{ role: 'user', content: 'hi' }],
    };
    expect(redactCredentials(request)).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      headers: { 'anthropic-version': '2023-06-01' },
      nested: [{ input_tokens: 3 }],
      messages: [{ role: 'user', content: 'hi' }],
    });
  });

  it('R1.10 replaces credential-looking values under innocent keys', () => {
    expect(redactCredentials({ note: 'Bearer sk-ant-api03-abcdefghijklmnopqrstu', other: 'uses sk-proj-ABCDEFGHIJKLMNOPQRSTUV inline' })).toEqual({
      note: REDACTED,
      other: REDACTED,
    });
  });

  it('handles Headers, cycles, bigints and functions without throwing', () => {
    const cyclic: Record<string, unknown> = { a: 1n, f: () => 1 };
    cyclic['self'] = cyclic;
    expect(redactCredentials(cyclic)).toEqual({ a: '1', self: '[circular]' });
    expect(redactCredentials(new Headers({ authorization: 'x', accept: 'text/event-stream' }))).toEqual({ accept: 'text/event-stream' });
  });
});
