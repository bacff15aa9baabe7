/**
 * Decision 0261: one spelling per option. `retry.fallbackModel` and
 * `retry.refreshCredentials` are the options; `hooks.fallbackModel` and
 * `hooks.refreshCredentials` still work but each gets a typed
 * `DEPRECATED_OPTION` warning event first, and `retry.*` wins when both are given.
 */
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { AgentLoopEvent, DeprecatedOptionWarning } from '../../src/index.js';
import { collect, enqueue, reply, startLoop, startUpstream } from './loop-harness.js';

const { upstream, server } = startUpstream();
afterEach(() => upstream.reset());
afterAll(() => server.close());

const protocol = 'chat' as const;
const isDeprecation = (event: AgentLoopEvent): event is DeprecatedOptionWarning =>
  event.type === 'warning' && 'code' in event && event.code === 'DEPRECATED_OPTION';

describe('deprecated hooks.* spellings (decision 0261, R1.7, R1.9)', () => {
  it('each hooks.* option given gets one typed warning, before anything else, and still works', async () => {
    enqueue(upstream, protocol, reply(protocol).httpError(401), reply(protocol).text('Done.'));
    const refreshCredentials = vi.fn(async () => ({ apiKey: 'sk-from-hook' }));
    const events = await collect(startLoop(protocol, { hooks: { refreshCredentials, fallbackModel: 'model-b' } }));
    expect(events.slice(0, 2)).toEqual([
      expect.objectContaining({ type: 'warning', code: 'DEPRECATED_OPTION', option: 'hooks.fallbackModel', replacement: 'retry.fallbackModel' }),
      expect.objectContaining({ type: 'warning', code: 'DEPRECATED_OPTION', option: 'hooks.refreshCredentials', replacement: 'retry.refreshCredentials' }),
    ]);
    expect(events.filter(isDeprecation)).toHaveLength(2);
    expect(refreshCredentials).toHaveBeenCalledTimes(1);
    expect(upstream.requestsFor(protocol)[1]!.headers.authorization).toBe('Bearer sk-from-hook');
  });

  it('the retry.* spelling gets no warning and wins over hooks.*', async () => {
    enqueue(upstream, protocol, reply(protocol).httpError(401), reply(protocol).text('Done.'));
    const fromHooks = vi.fn(async () => ({ apiKey: 'sk-hooks' }));
    const fromRetry = vi.fn(async () => ({ apiKey: 'sk-retry' }));
    const events = await collect(
      startLoop(protocol, { retry: { initialDelayMs: 0, jitterRatio: 0, refreshCredentials: fromRetry }, hooks: { refreshCredentials: fromHooks } }),
    );
    expect(events.filter(isDeprecation).map((event) => event.option)).toEqual(['hooks.refreshCredentials']);
    expect([fromRetry.mock.calls.length, fromHooks.mock.calls.length]).toEqual([1, 0]);
    expect(upstream.requestsFor(protocol)[1]!.headers.authorization).toBe('Bearer sk-retry');

    upstream.reset();
    enqueue(upstream, protocol, reply(protocol).text('Done.'));
    expect((await collect(startLoop(protocol, { retry: { initialDelayMs: 0, refreshCredentials: fromRetry, fallbackModel: 'model-b' } }))).filter(isDeprecation)).toEqual([]);
  });
});
