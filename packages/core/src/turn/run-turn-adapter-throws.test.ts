import { beforeEach, describe, expect, it } from 'vitest';
import type { ProtocolAdapter } from '../adapter/protocol-adapter.js';
import type { DecodedStreamEvent } from '../types/turn-event.js';
import { collectTurnEvents, createFakeFetch, fakeAdapter, type FakeNative } from './fake-wire.test-helper.js';
import { runTurn } from './run-turn.js';
import type { TurnRecord, UsageSample } from './stats-sink.js';

// R6.1 / R6.2 / runTurn "never rejects": an adapter that throws at any step
// still ends the turn with a typed error and exactly one turn record, and a
// request that reached the upstream is recorded as a physical sample even
// when its stream could not be read. Each step is a path the turn engine
// catches itself (decision 0320).
const bug = new Error('adapter bug');
const adapterBug = (): never => {
  throw bug;
};

/** How many times a decoder below was closed (its `return()`): reset before each test. */
let closed = 0;
beforeEach(() => {
  closed = 0;
});

/** A decoder that hands out its first event, then throws on the synchronous read of its batch (a decoder bug mid-stream). */
function decoderFailingAfterFirstEvent(): AsyncIterable<DecodedStreamEvent> {
  const first: DecodedStreamEvent = { type: 'text-delta', id: 't', delta: 'shown' };
  let served = false;
  const iterator = {
    next: async (): Promise<IteratorResult<DecodedStreamEvent>> => {
      if (served) return new Promise(() => undefined);
      served = true;
      return { done: false, value: first };
    },
    takeBuffered: (): DecodedStreamEvent | undefined => (served ? adapterBug() : undefined),
    return: async (): Promise<IteratorResult<DecodedStreamEvent>> => {
      closed += 1;
      return { done: true, value: undefined };
    },
  };
  return { [Symbol.asyncIterator]: () => iterator };
}

const cases: { step: string; adapter: Partial<ProtocolAdapter<FakeNative>>; sent: 0 | 1; events: string[] }[] = [
  { step: 'reading the thinking budget, before any request', adapter: { getThinkingBudget: adapterBug }, sent: 0, events: ['error'] },
  { step: 'building the HTTP request', adapter: { buildHttpRequest: adapterBug }, sent: 0, events: ['error'] },
  { step: 'starting to decode the response body', adapter: { decodeStream: adapterBug }, sent: 1, events: ['error'] },
  {
    step: 'decoding, after output reached the host',
    adapter: { decodeStream: decoderFailingAfterFirstEvent },
    sent: 1,
    events: ['text-delta', 'error'],
  },
];

describe('runTurn ends recorded when an adapter throws (R6.1, R6.2)', () => {
  it.each(cases)('$step', async ({ adapter, sent, events: expectedEvents }) => {
    const wire = createFakeFetch([{ lines: [{ t: 'never read' }, { end: 'stop' }] }]);
    const samples: UsageSample[] = [];
    const turns: TurnRecord[] = [];
    const run = runTurn({
      adapter: { ...fakeAdapter, ...adapter },
      request: { model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] },
      target: { baseUrl: 'https://upstream.test' },
      fetch: wire.fetch,
      retry: { maxRetries: 0 },
      stats: { recordUsage: (sample) => void samples.push(sample), recordTurn: (turn) => void turns.push(turn) },
    });
    const events = await collectTurnEvents(run);
    const result = await run.result;
    expect(wire.requests).toHaveLength(sent);
    expect(events.map((event) => event.type)).toEqual(expectedEvents);
    expect(result).toMatchObject({ outcome: 'error', error: { code: 'UNKNOWN', retryable: false } });
    expect(result.error?.cause).toBe(bug);
    // A request that reached the upstream is one physical sample, whatever broke after (R6.1).
    expect(samples.map((sample) => [sample.ok, sample.errorCode])).toEqual(sent === 1 ? [[false, 'UNKNOWN']] : []);
    expect(turns).toEqual([expect.objectContaining({ outcome: 'failed', errorCode: 'UNKNOWN', physicalRequests: sent })]);
  });

  it('a decoder that threw mid-stream is closed, so it releases the upstream', async () => {
    const run = runTurn({
      adapter: { ...fakeAdapter, decodeStream: decoderFailingAfterFirstEvent },
      request: { model: 'm', messages: [] },
      target: { baseUrl: 'https://upstream.test' },
      fetch: createFakeFetch([{ lines: [], then: 'hang' }]).fetch,
      retry: { maxRetries: 0 },
    });
    await collectTurnEvents(run);
    await run.result;
    expect(closed).toBe(1);
  });

  it('a body no decoder could start on is cancelled, so the upstream is released', async () => {
    let cancelled = 0;
    const fetch = async (): Promise<Response> =>
      new Response(new ReadableStream<Uint8Array>({ pull: () => new Promise(() => undefined), cancel: () => void (cancelled += 1) }), {
        status: 200,
        headers: { 'content-type': 'text/event-stream' },
      });
    const run = runTurn({
      adapter: { ...fakeAdapter, decodeStream: adapterBug },
      request: { model: 'm', messages: [] },
      target: { baseUrl: 'https://upstream.test' },
      fetch,
      retry: { maxRetries: 0 },
    });
    await collectTurnEvents(run);
    expect((await run.result).error?.cause).toBe(bug);
    expect(cancelled).toBe(1);
  });
});
