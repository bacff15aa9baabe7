import { describe, expect, it } from 'vitest';
import { parseRetryAfterMs } from './parse-retry-after.js';
import { parseGoDurationMs, parseRateLimitResetAt } from './parse-rate-limit-reset.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');

describe('parseRetryAfterMs (R1.3)', () => {
  it('R1.3 prefers retry-after-ms, then delta-seconds, then HTTP-date — exactly', () => {
    expect(parseRetryAfterMs(new Headers({ 'retry-after-ms': '1500.5', 'retry-after': '9' }), NOW)).toBe(1500.5);
    expect(parseRetryAfterMs(new Headers({ 'retry-after': '7' }), NOW)).toBe(7000);
    expect(parseRetryAfterMs({ 'Retry-After': 'Thu, 01 Jan 2026 00:00:42 GMT' }, NOW)).toBe(42_000);
  });

  it('treats past dates as 0 and garbage or absence as no directive', () => {
    expect(parseRetryAfterMs({ 'retry-after': 'Wed, 31 Dec 2025 23:00:00 GMT' }, NOW)).toBe(0);
    expect(parseRetryAfterMs({ 'retry-after': 'soon' }, NOW)).toBeUndefined();
    expect(parseRetryAfterMs({ 'retry-after-ms': '-5', 'retry-after': '' }, NOW)).toBeUndefined();
    expect(parseRetryAfterMs(undefined, NOW)).toBeUndefined();
  });
});

describe('parseRateLimitResetAt (R1.11)', () => {
  it('R1.11 reads anthropic-ratelimit-unified-reset (epoch seconds) first', () => {
    const headers = { 'anthropic-ratelimit-unified-reset': String(NOW / 1000 + 600), 'anthropic-ratelimit-tokens-reset': '2026-01-01T00:00:05Z' };
    expect(parseRateLimitResetAt(headers, NOW)).toBe(NOW + 600_000);
  });

  it('R1.11 takes the latest reset among exhausted Anthropic windows (RFC 3339)', () => {
    const headers = new Headers({
      'anthropic-ratelimit-requests-remaining': '0',
      'anthropic-ratelimit-requests-reset': '2026-01-01T00:00:20Z',
      'anthropic-ratelimit-tokens-remaining': '0',
      'anthropic-ratelimit-tokens-reset': '2026-01-01T00:01:00Z',
      'anthropic-ratelimit-output-tokens-remaining': '5000',
      'anthropic-ratelimit-output-tokens-reset': '2026-01-01T00:09:00Z',
    });
    expect(parseRateLimitResetAt(headers, NOW)).toBe(NOW + 60_000);
  });

  it('R1.11 reads OpenAI x-ratelimit-reset-* Go durations relative to now', () => {
    const headers = { 'x-ratelimit-remaining-tokens': '0', 'x-ratelimit-reset-tokens': '6m0s', 'x-ratelimit-remaining-requests': '3', 'x-ratelimit-reset-requests': '1s' };
    expect(parseRateLimitResetAt(headers, NOW)).toBe(NOW + 360_000);
    expect(parseRateLimitResetAt({}, NOW)).toBeUndefined();
  });

  it('parses Go durations and rejects junk', () => {
    expect([parseGoDurationMs('20ms'), parseGoDurationMs('1h2m3.5s'), parseGoDurationMs('1m30s')]).toEqual([20, 3_723_500, 90_000]);
    expect([parseGoDurationMs('abc'), parseGoDurationMs('5'), parseGoDurationMs('1s x')]).toEqual([undefined, undefined, undefined]);
  });
});
