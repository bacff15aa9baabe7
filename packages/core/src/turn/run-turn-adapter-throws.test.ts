import { describe, expect, it } from 'vitest';
import type { ProtocolAdapter } from '../adapter/protocol-adapter.js';
import { collectTurnEvents, createFakeFetch, fakeAdapter, type FakeNative } from './fake-wire.test-helper.js';
import { runTurn } from './run-turn.js';
import type { TurnRecord } from './stats-sink.js';

// R6.2 / runTurn "never rejects": an adapter (or a host hook) that throws at
// any step still ends the turn with a typed error and exactly one turn record.
// Each step below is a path the turn engine catches itself (decisions 0297–0299).
const adapterBug = (): never => {
  throw new Error('adapter bug');
};

const cases: { step: string; adapter: Partial<ProtocolAdapter<FakeNative>>; requests: number }[] = [
  { step: 'reading the thinking budget, before any request', adapter: { getThinkingBudget: adapterBug }, requests: 0 },
  { step: 'building the HTTP request', adapter: { buildHttpRequest: adapterBug }, requests: 0 },
  { step: 'starting to decode the response body', adapter: { decodeStream: adapterBug }, requests: 1 },
];

describe('runTurn ends recorded when an adapter throws (R6.2)', () => {
  it.each(cases)('$step', async ({ adapter, requests }) => {
    const wire = createFakeFetch([{ lines: [{ t: 'never read' }, { end: 'stop' }] }]);
    const turns: TurnRecord[] = [];
    const run = runTurn({
      adapter: { ...fakeAdapter, ...adapter },
      request: { model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] },
      target: { baseUrl: 'https://upstream.test' },
      fetch: wire.fetch,
      retry: { maxRetries: 0 },
      stats: { recordUsage: () => undefined, recordTurn: (turn) => void turns.push(turn) },
    });
    const events = await collectTurnEvents(run);
    const result = await run.result;
    expect(wire.requests).toHaveLength(requests);
    expect(events.map((event) => event.type)).toEqual(['error']);
    expect(result.outcome).toBe('error');
    expect(result.error).toBeDefined();
    expect(result.error?.cause).toEqual(new Error('adapter bug'));
    expect(turns).toEqual([expect.objectContaining({ outcome: 'failed', errorCode: 'UNKNOWN' })]);
  });
});
