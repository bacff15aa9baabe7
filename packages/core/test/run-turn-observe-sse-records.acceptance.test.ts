/**
 * runTurn's `observeSseRecords` (R8.13): asked once per successful response
 * body — every attempt of segment 1 and the recovery segment — each observer
 * sees that body's records with their raw text and the events decoded from
 * them; a failed HTTP attempt has no body to observe.
 */
import { scenario } from '@turnguard/testkit';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { DecodedStreamEvent, ObservedSseRecord, ResponseBodyInfo } from '../src/index.js';
import { startUpstream } from './msw-upstream.js';
import { collectEvents, enqueue, PROTOCOLS, startTurn } from './turn-harness.js';

const { upstream, server } = startUpstream();
afterEach(() => upstream.reset());
afterAll(() => server.close());

describe.each(PROTOCOLS)('runTurn observeSseRecords over %s (R8.13)', (protocol) => {
  it('one observer per body, in order; each sees its records once, raw and decoded', async () => {
    enqueue(
      upstream,
      protocol,
      scenario.for(protocol).httpError(503),
      scenario.for(protocol).reasoning('thinking about it').eof(),
      scenario.for(protocol).text('The answer.'),
    );
    const bodies: Array<{ info: ResponseBodyInfo; records: Array<ObservedSseRecord<DecodedStreamEvent>> }> = [];
    const { run } = startTurn(protocol, {
      observeSseRecords: (info) => {
        const body = { info, records: [] as Array<ObservedSseRecord<DecodedStreamEvent>> };
        bodies.push(body);
        return { onRecord: (record) => void body.records.push(record) };
      },
    });
    const events = await collectEvents(run);
    expect((await run.result).recovery?.recovered).toBe(true);
    expect(upstream.requestsFor(protocol)).toHaveLength(3);
    // The 503 has no body to observe: the cut segment 1 and the recovery do.
    expect(bodies.map((body) => body.info.segmentIndex)).toEqual([0, 1]);
    expect(new Set(bodies.map((body) => body.info.requestId)).size).toBe(2);
    for (const body of bodies) {
      expect(body.records.length).toBeGreaterThan(0);
      for (const record of body.records) expect(record.raw).toMatch(/(\r\n|\n|\r)(\r\n|\n|\r)$/);
    }
    const reasoning = bodies[0]!.records.flatMap((record) => record.events).filter((event) => event.type === 'reasoning-delta');
    expect(reasoning.map((event) => (event as { delta: string }).delta).join('')).toBe('thinking about it');
    const text = bodies[1]!.records.flatMap((record) => record.events).filter((event) => event.type === 'text-delta');
    expect(text.map((event) => (event as { delta: string }).delta).join('')).toBe('The answer.');
    expect(events.some((event) => event.type === 'text-delta')).toBe(true);
  });
});
