import { describe, expect, it } from 'vitest';
import { collectTurnEvents, createFakeFetch, fakeAdapter, textOf, type FakeReply } from './fake-wire.test-helper.js';
import { runTurn } from './run-turn.js';
import type { TurnRecord, UsageSample } from './stats-sink.js';

function setup(replies: FakeReply[]) {
  const wire = createFakeFetch(replies);
  const samples: UsageSample[] = [];
  const turns: TurnRecord[] = [];
  const run = runTurn({
    adapter: fakeAdapter,
    request: { model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'question' }] }] },
    target: { baseUrl: 'https://upstream.test' },
    fetch: wire.fetch,
    retry: { initialDelayMs: 0, jitterRatio: 0 },
    stats: { recordUsage: (s) => void samples.push(s), recordTurn: (t) => void turns.push(t) },
  });
  return { run, wire, samples, turns };
}

const collect = collectTurnEvents;

// The fake body's `reset` errors the read with undici's `TypeError: terminated` (UND_ERR_SOCKET) after the lines.
describe('runTurn: complete means complete (R8.12) with bodies that fail after the terminal frame', () => {
  it('a read failure after the finish frame is success with the finish reason: no STREAM_CUT, no retry', async () => {
    const { run, wire, samples, turns } = setup([
      { lines: [{ t: 'Answer.' }, { u: { in: 3, out: 2 } }, { end: 'stop' }], then: 'reset' },
    ]);
    const events = await collect(run);
    const result = await run.result;
    expect(result).toMatchObject({ outcome: 'ok', error: undefined, finishReason: { unified: 'stop' } });
    expect(textOf(events)).toBe('Answer.');
    expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: { unified: 'stop' } });
    expect(wire.requests).toHaveLength(1);
    expect(samples).toEqual([expect.objectContaining({ ok: true, errorCode: undefined })]);
    expect(turns).toEqual([expect.objectContaining({ outcome: 'ok', physicalRequests: 1 })]);
  });

  it('keeps an output-limit finish as it came when the read fails behind it', async () => {
    const { run, wire } = setup([{ lines: [{ t: 'Partial' }, { end: 'length' }], then: 'reset' }]);
    await collect(run);
    expect(await run.result).toMatchObject({ outcome: 'ok', finishReason: { unified: 'length' } });
    expect(wire.requests).toHaveLength(1);
  });

  it('a finish with no output, then a failed read, is complete: not a retryable TRANSPORT', async () => {
    const { run, wire } = setup([{ lines: [{ end: 'stop' }], then: 'reset' }, { lines: [{ t: 'again' }, { end: 'stop' }] }]);
    const events = await collect(run);
    expect(await run.result).toMatchObject({ outcome: 'ok', finishReason: { unified: 'stop' } });
    expect(events.some((event) => event.type === 'retry')).toBe(false);
    expect(wire.requests).toHaveLength(1);
  });

  it('a reasoning-only segment that finished is not a cut: no recovery request', async () => {
    const { run, wire } = setup([{ lines: [{ r: 'thinking' }, { end: 'stop' }], then: 'reset' }]);
    const events = await collect(run);
    expect(await run.result).toMatchObject({ outcome: 'ok', recovery: undefined });
    expect(events.some((event) => event.type === 'recovery-start')).toBe(false);
    expect(wire.requests).toHaveLength(1);
  });

  it('an undecodable record or error frame behind the finish frame changes nothing', async () => {
    const { run, wire } = setup([{ lines: [{ t: 'Done.' }, { end: 'stop' }, { err: 'server' }] }]);
    await collect(run);
    expect(await run.result).toMatchObject({ outcome: 'ok', error: undefined, finishReason: { unified: 'stop' } });
    expect(wire.requests).toHaveLength(1);
  });

  it('control: the same failed read before the finish frame stays STREAM_CUT after output', async () => {
    const { run, wire } = setup([{ lines: [{ t: 'Half' }], then: 'reset' }]);
    await collect(run);
    expect((await run.result).error).toMatchObject({ code: 'STREAM_CUT', details: { upstreamCode: 'TRANSPORT' } });
    expect(wire.requests).toHaveLength(1);
  });
});
