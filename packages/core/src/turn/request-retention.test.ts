import { describe, expect, it } from 'vitest';
import { collectGarbage } from '../internal/collect-garbage.test-helper.js';
import { runTurn } from './run-turn.js';
import { createFakeFetch, fakeAdapter, type FakeNative } from './fake-wire.test-helper.js';
import type { ProtocolAdapter, UpstreamTarget } from '../adapter/protocol-adapter.js';

// A gateway turn lives as long as its stream, so what only the request
// needed — the built request (its serialized body is the whole prompt), the
// streaming copy of the native request — must not be held while the stream
// runs (decision 0320). Checked with a full garbage collection.
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Opens a turn whose upstream hangs after its first delta, collects garbage, then reports what `kept` still reaches. */
async function collectedWhileStreaming(adapter: ProtocolAdapter<FakeNative>, kept: WeakRef<object>[], given: { request?: FakeNative; requestBytes?: Uint8Array } = {}): Promise<(object | undefined)[]> {
  const { fetch } = createFakeFetch([{ lines: [{ t: 'first' }], then: 'hang' }]);
  const run = runTurn({
    adapter,
    request: given.request ?? { model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'x'.repeat(10_000) }] }] },
    ...(given.requestBytes === undefined ? {} : { requestBytes: given.requestBytes }),
    target: { baseUrl: 'https://upstream.test', apiKey: 'k' },
    fetch: fetch as never,
    retry: { maxRetries: 0 },
    streamRecovery: false,
  });
  // The turn has the bytes now: this helper lets go of its own reference.
  delete given.requestBytes;
  const events = run[Symbol.asyncIterator]();
  let step = await events.next();
  while (step.done !== true && step.value.type !== 'text-delta') step = await events.next();
  expect(step.done !== true && step.value.type === 'text-delta' && step.value.delta).toBe('first');
  // The stream is open (the upstream hangs): the turn waits in its segment read.
  const waiting = events.next();
  await settle();
  collectGarbage();
  collectGarbage();
  const reached = kept.map((ref) => ref.deref());
  await events.return?.();
  await waiting;
  return reached;
}

describe('runTurn does not hold the request while its stream runs (decision 0320)', () => {
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
    const reached = await collectedWhileStreaming(adapter, built);
    expect(reached).toEqual([undefined]);
  });

  it('the streaming copy of the request is collectable once the response head is in', async () => {
    const streaming: WeakRef<object>[] = [];
    const adapter: ProtocolAdapter<FakeNative> = {
      ...fakeAdapter,
      withStreaming: (native) => {
        const copy = fakeAdapter.withStreaming(native);
        streaming.push(new WeakRef(copy));
        return copy;
      },
    };
    const reached = await collectedWhileStreaming(adapter, streaming);
    expect(reached).toEqual([undefined]);
  });

  it('the host’s bytes are what the first request sends when it is unchanged, and are collectable once it is sent (R8.2)', async () => {
    const request: FakeNative = { model: 'm', stream: true, messages: [{ role: 'user', content: [{ type: 'text', text: 'x'.repeat(10_000) }] }] };
    const sentBodies: string[] = [];
    const adapter: ProtocolAdapter<FakeNative> = {
      ...fakeAdapter,
      // Already streaming: the request itself, as the real adapters do.
      withStreaming: (native) => native,
      buildHttpRequest: ((native: FakeNative, target: UpstreamTarget, body?: Uint8Array) => {
        sentBodies.push(body === undefined ? 'serialized' : body === kept[0]!.deref() ? 'the host’s bytes' : 'other bytes');
        return { ...fakeAdapter.buildHttpRequest(native, target), ...(body === undefined ? {} : { body }) };
      }) as ProtocolAdapter<FakeNative>['buildHttpRequest'],
    };
    const kept = [new WeakRef<object>(Buffer.from(JSON.stringify(request)))];
    const reached = await collectedWhileStreaming(adapter, kept, { request, requestBytes: kept[0]!.deref() as Buffer });
    expect(sentBodies).toEqual(['the host’s bytes']);
    expect(reached).toEqual([undefined]);
  });
});
