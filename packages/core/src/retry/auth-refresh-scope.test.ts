import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { classifyHttpError } from '../errors/classify-http-error.js';
import { TurnError } from '../errors/turn-error.js';
import { createScriptedOperation, settle } from './scripted-operation.test-helper.js';
import { withRetry, type RetryEvent } from './with-retry.js';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('R1.7 credential refresh applies to auth failures only (R1.2)', () => {
  it.each([
    ['refused_region', 'REFUSED_REGION'],
    ['content_filter', 'CONTENT_FILTER'],
  ] as const)('a 403 refined into %s is final: no refresh hook, no second request', async (kind, code) => {
    const refined = classifyHttpError(403, undefined, '{"error":{"message":"refused"}}').with({ kind, code, retryable: false });
    const refreshCredentials = vi.fn(async () => {});
    const events: RetryEvent[] = [];
    const script = createScriptedOperation([refined]);
    const outcome = settle(withRetry(script.operation, { refreshCredentials, onRetry: (event) => events.push(event) }));
    await vi.runAllTimersAsync();
    const result = await outcome;
    expect(result.ok).toBe(false);
    expect(TurnError.isInstance((result as { error: unknown }).error) && (result as { error: TurnError }).error.code).toBe(code);
    expect([refreshCredentials.mock.calls.length, script.contexts.length, events.length]).toEqual([0, 1, 0]);
  });

  it('a plain 403 is an auth failure and still gets its one refresh', async () => {
    const refreshCredentials = vi.fn(async () => {});
    const script = createScriptedOperation([classifyHttpError(403, undefined, '')]);
    const outcome = settle(withRetry(script.operation, { refreshCredentials }));
    await vi.runAllTimersAsync();
    expect([(await outcome).ok, refreshCredentials.mock.calls.length, script.contexts.length]).toEqual([true, 1, 2]);
  });
});
