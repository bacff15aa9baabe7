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

describe('redactCredentials by value', () => {
  it('replaces every occurrence of a given secret inside longer strings, at any depth', () => {
    const secret = '0123456789abcdef0123456789abcdef';
    expect(redactCredentials({ error: { message: `key ${secret} is wrong; again: ${secret}` }, list: [secret] }, [secret])).toEqual({
      error: { message: `key ${REDACTED} is wrong; again: ${REDACTED}` },
      list: [REDACTED],
    });
  });

  it('ignores secrets too short to be keys, so a dump stays readable', () => {
    expect(redactCredentials({ message: 'a k in the text' }, ['k'])).toEqual({ message: 'a k in the text' });
  });

  it('catches a bearer token mid-string and the gsk_ / AIza shapes without being told', () => {
    expect(redactCredentials({ a: 'the header was Bearer abcdefgh12345', b: 'gsk_0123456789abcdefghijKLMN', c: 'AIzaSyA0123456789abcdefghijklmnopqrstu' })).toEqual({ a: REDACTED, b: REDACTED, c: REDACTED });
  });
});
