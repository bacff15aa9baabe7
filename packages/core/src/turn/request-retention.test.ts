import { describe, expect, it } from 'vitest';
import { collectGarbage } from '../internal/v8-probes.test-helper.js';
import { runTurn } from './run-turn.js';
import { createFakeFetch, fakeAdapter, type FakeNative } from './fake-wire.test-helper.js';
import type { ProtocolAdapter } from '../adapter/protocol-adapter.js';

// Issue 19, decision 0292: a gateway turn lives as long as its stream, so the
// built request (its serialized body is the whole prompt) must not be held
// while the stream runs. Checked with V8's own collector.
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('runTurn does not hold the built request while its stream runs (issue 19, decision 0292)', () => {
  it('the request the adapter built is collectable once the response head is in', async () => {
    const built: WeakRef<object>[] = [];
    const adapter: ProtocolAdapter<FakeNative> = {
      ...fakeAdapter,
      buildHttpRequest: (native, target) => {
        const http = fakeAdapter.buildHttpRequest(native, target);
        built.push(new WeakRef(http));
        return http;
      },
    };
    const { fetch } = createFakeFetch([{ lines: [{ t: 'first' }], then: 'hang' }]);
    const run = runTurn({
      adapter,
      request: { model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'x'.repeat(10_000) }] }] },
      target: { baseUrl: 'https://upstream.test', apiKey: 'k' },
      fetch: fetch as never,
      retry: { maxRetries: 0 },
      streamRecovery: false,
    });
    const events = run[Symbol.asyncIterator]();
    let step = await events.next();
    while (step.done !== true && step.value.type !== 'text-delta') step = await events.next();
    expect(step.done !== true && step.value.type === 'text-delta' && step.value.delta).toBe('first');
    // The stream is open (the upstream hangs): the turn waits in its segment read.
    const waiting = events.next();
    await settle();
    collectGarbage();
    collectGarbage();
    expect(built).toHaveLength(1);
    expect(built[0]!.deref()).toBeUndefined();
    await events.return?.();
    await waiting;
  });
});
