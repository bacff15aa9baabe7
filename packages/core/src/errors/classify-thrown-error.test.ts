import { describe, expect, it } from 'vitest';
import { classifyThrownError } from './classify-thrown-error.js';
import { TurnError } from './turn-error.js';

/** What undici throws when the socket dies mid-body (reference/toolchain.md, measured). */
function createUndiciTerminated(): TypeError {
  const socketError = Object.assign(new Error('other side closed'), { name: 'SocketError', code: 'UND_ERR_SOCKET' });
  return new TypeError('terminated', { cause: socketError });
}

function createErrno(code: string, message: string): Error {
  return Object.assign(new Error(message), { code, errno: -1, syscall: 'read' });
}

describe('classifyThrownError (R2.1)', () => {
  it('R1.1 undici TypeError: terminated (UND_ERR_SOCKET) → transport, retryable, raw kept as cause', () => {
    const raw = createUndiciTerminated();
    const error = classifyThrownError(raw);
    expect([error.kind, error.code, error.retryable]).toEqual(['transport', 'TRANSPORT', true]);
    expect(error.details).toEqual({ errorCode: 'UND_ERR_SOCKET' });
    expect(error.cause).toBe(raw);
  });

  it.each(['ECONNRESET', 'EPIPE', 'ECONNREFUSED'])('R1.1 %s → transport, retryable', (code) => {
    const error = classifyThrownError(createErrno(code, `read ${code}`));
    expect([error.kind, error.retryable, error.details['errorCode']]).toEqual(['transport', true, code]);
  });

  it('R1.1 fetch failed (cause ECONNREFUSED) and socket hang up → transport', () => {
    const fetchFailed = new TypeError('fetch failed', { cause: createErrno('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:1') });
    expect(classifyThrownError(fetchFailed).details['errorCode']).toBe('ECONNREFUSED');
    expect(classifyThrownError(new TypeError('fetch failed')).kind).toBe('transport');
    const hangUp = classifyThrownError(new Error('socket hang up'));
    expect([hangUp.kind, hangUp.retryable]).toEqual(['transport', true]);
  });

  it('R1.1 WHATWG "Failed to fetch" (browsers, msw network error) → transport, retryable', () => {
    const failed = classifyThrownError(new TypeError('Failed to fetch'));
    expect([failed.kind, failed.code, failed.retryable]).toEqual(['transport', 'TRANSPORT', true]);
  });

  it('R1.6 AbortError and an aborted signal reason → aborted/ABORTED, never retryable', () => {
    const controller = new AbortController();
    controller.abort();
    const fromSignal = classifyThrownError(controller.signal.reason);
    expect([fromSignal.kind, fromSignal.code, fromSignal.retryable]).toEqual(['aborted', 'ABORTED', false]);
    const domAbort = classifyThrownError(new DOMException('This operation was aborted', 'AbortError'));
    expect(domAbort.code).toBe('ABORTED');
  });

  it('TimeoutError (AbortSignal.timeout) → timeout', () => {
    const error = classifyThrownError(new DOMException('The operation timed out.', 'TimeoutError'));
    expect([error.kind, error.code, error.retryable]).toEqual(['timeout', 'TIMEOUT', false]);
  });

  it('a TurnError passes through unchanged', () => {
    const cut = new TurnError({ kind: 'stream_cut', message: 'cut after output' });
    expect(classifyThrownError(cut)).toBe(cut);
  });

  it('an SDK APIError shape is classified from its status, headers and body', () => {
    const sdkError = Object.assign(new Error('429 Rate limit'), {
      name: 'RateLimitError',
      status: 429,
      headers: new Headers({ 'retry-after': '2', 'request-id': 'req_9' }),
      error: { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } },
    });
    const error = classifyThrownError(sdkError);
    expect([error.kind, error.retryAfterMs, error.requestId, error.cause]).toEqual(['rate_limit', 2000, 'req_9', sdkError]);
  });

  it('unknown throws become non-retryable UNKNOWN without copying their message', () => {
    const syntax = classifyThrownError(new SyntaxError('Unexpected token s in JSON at "secret prompt"'));
    expect([syntax.kind, syntax.code, syntax.retryable]).toEqual(['server', 'UNKNOWN', false]);
    expect(syntax.message).not.toContain('secret');
    for (const value of ['text', undefined, null, 42, { weird: true }]) {
      expect(classifyThrownError(value).code).toBe('UNKNOWN');
    }
  });
});
