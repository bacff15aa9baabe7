import { describe, expect, it } from 'vitest';
import { TurnError, type TurnErrorOptions } from '../errors/turn-error.js';
import { FallbackSignal } from '../retry/index.js';
import { classifyFailure, countsAgainstCircuit, isPrefillRefusal, type FailureClass } from './classify-failure.js';

const error = (options: Partial<TurnErrorOptions> & Pick<TurnErrorOptions, 'kind'>): TurnError =>
  new TurnError({ message: 'x', ...options });

describe('R11.2 failure classes', () => {
  it.each<[string, TurnError, FailureClass]>([
    ['abort', error({ kind: 'aborted' }), 'aborted'],
    ['429', error({ kind: 'rate_limit', status: 429 }), 'transient'],
    ['503 overloaded', error({ kind: 'overloaded', status: 503 }), 'transient'],
    ['500', error({ kind: 'server', status: 500 }), 'transient'],
    ['connection refused', error({ kind: 'transport' }), 'transient'],
    ['empty stream (R1.1)', error({ kind: 'transport', details: { emptyStream: true } }), 'cut'],
    ['cut after output', error({ kind: 'stream_cut' }), 'cut'],
    ['malformed event', error({ kind: 'server', code: 'MALFORMED_CHUNK' }), 'malformed'],
    ['malformed event after output (STREAM_CUT with the decoder\'s code)', error({ kind: 'stream_cut', details: { upstreamCode: 'MALFORMED_CHUNK' } }), 'malformed'],
    ['stall', error({ kind: 'timeout', code: 'STREAM_STALL' }), 'stall'],
    ['connect time-out', error({ kind: 'timeout', code: 'UPSTREAM_CONNECT_TIMEOUT' }), 'silent-route'],
    ['header time-out', error({ kind: 'timeout', code: 'UPSTREAM_HEADERS_TIMEOUT' }), 'silent-route'],
    ['first-token time-out', error({ kind: 'timeout', code: 'FIRST_TOKEN_TIMEOUT' }), 'silent-route'],
    ['turn time limit (R4.7)', error({ kind: 'timeout' }), 'turn-time-limit'],
    ['context length', error({ kind: 'prompt_too_long', status: 400 }), 'context-length'],
    [
      'R1.8 overflow',
      error({ kind: 'invalid_request', status: 400, details: { contextOverflow: { inputTokens: 1, maxTokens: 2, contextLimit: 2 } } }),
      'context-resize',
    ],
    ['content filter', error({ kind: 'content_filter', status: 400 }), 'content-filter'],
    ['region', error({ kind: 'refused_region', status: 403 }), 'content-filter'],
    ['401', error({ kind: 'auth', status: 401 }), 'auth'],
    ['400', error({ kind: 'invalid_request', status: 400 }), 'invalid-request'],
    ['413 media', error({ kind: 'media_too_large', status: 413 }), 'invalid-request'],
    [
      'prefill refused',
      error({ kind: 'invalid_request', status: 400, message: 'HTTP 400: This model does not support assistant message prefill. The conversation must end with a user message.' }),
      'prefill-refused',
    ],
    ['not retryable 5xx (x-should-retry: false)', error({ kind: 'server', status: 500, retryable: false }), 'final'],
    ['quota', error({ kind: 'rate_limit', status: 429, retryable: false, code: 'INSUFFICIENT_QUOTA' }), 'final'],
  ])('%s → %s', (_name, failure, expected) => {
    expect(classifyFailure(failure)).toBe(expected);
  });

  it('R1.9 fallback signal', () => {
    const signal = new FallbackSignal({ fallbackModel: 'b', consecutiveOverloads: 3, lastError: error({ kind: 'overloaded' }) });
    expect(classifyFailure(signal)).toBe('fallback-signal');
  });

  it('a connection that drops after a 2xx started is a cut, not a refused connection', () => {
    expect(classifyFailure(error({ kind: 'transport' }), { responseStarted: true })).toBe('cut');
  });

  it.each([
    'HTTP 400: This model does not support assistant message prefill. The conversation must end with a user message.',
    'HTTP 400: Prefilling assistant messages is not supported for this model.',
    'HTTP 400: Assistant response prefill is incompatible with enable_thinking.',
    'HTTP 400: messages: final assistant content cannot end with trailing whitespace',
  ])('a prefill refusal is recognised: %s', (message) => {
    expect(isPrefillRefusal({ kind: 'invalid_request', message })).toBe(true);
  });

  it('an ordinary 400 or a 500 that mentions prefill is not a refusal', () => {
    expect(isPrefillRefusal({ kind: 'invalid_request', message: 'HTTP 400: messages.0.content: Field required' })).toBe(false);
    expect(isPrefillRefusal({ kind: 'server', message: 'does not support assistant message prefill' })).toBe(false);
  });

  it('R11.5: only the upstream\'s own trouble counts against its circuit', () => {
    const counted: FailureClass[] = ['transient', 'silent-route', 'stall', 'cut', 'malformed', 'fallback-signal'];
    const notCounted: FailureClass[] = ['aborted', 'content-filter', 'auth', 'context-length', 'context-resize', 'prefill-refused', 'invalid-request', 'turn-time-limit', 'final'];
    expect(counted.filter(countsAgainstCircuit)).toEqual(counted);
    expect(notCounted.filter(countsAgainstCircuit)).toEqual([]);
  });
});
