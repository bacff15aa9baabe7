/**
 * Real sockets (R1.1, R4.2): msw cannot drop a socket
 * (toolchain pitfall 5), so this file uses testkit's loopback upstream and
 * must never load msw (pitfall 4).
 */
import { scenario, startLoopbackUpstream, type LoopbackUpstream } from '@turnguard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { collectEvents, enqueue, PROTOCOLS, startTurn, textOf } from './turn-harness.js';

let upstream: LoopbackUpstream | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

describe.each(PROTOCOLS)('runTurn over real sockets, %s', (protocol) => {
  it('row 15: a socket destroyed before headers (ECONNRESET-like) is retried as TRANSPORT', async () => {
    upstream = await startLoopbackUpstream();
    enqueue(
      upstream,
      protocol,
      scenario.for(protocol).destroySocketBeforeHeaders(),
      scenario.for(protocol).text('Done.'),
    );
    const { run, samples } = startTurn(protocol, { baseUrl: upstream.baseUrl });
    const events = await collectEvents(run);
    expect(upstream.requestsFor(protocol)).toHaveLength(2);
    expect(events.find((e) => e.type === 'retry')).toMatchObject({ code: 'TRANSPORT' });
    expect(textOf(events)).toBe('Done.');
    expect(samples.map((s) => [s.ok, s.errorCode])).toEqual([
      [false, 'TRANSPORT'],
      [true, undefined],
    ]);
  });

  it('R4.2: a socket destroyed after reasoning reached the host is a network error: STREAM_CUT, no recovery, no retry', async () => {
    upstream = await startLoopbackUpstream();
    enqueue(
      upstream,
      protocol,
      scenario.for(protocol).reasoning(4000).destroySocket({ afterBytes: 3000 }),
      scenario.for(protocol).text('Done.'),
    );
    const { run, turns } = startTurn(protocol, { baseUrl: upstream.baseUrl });
    const events = await collectEvents(run);
    expect(events.some((e) => e.type === 'reasoning-delta')).toBe(true);
    expect(upstream.requestsFor(protocol)).toHaveLength(1);
    expect((await run.result).error).toMatchObject({
      code: 'STREAM_CUT',
      retryable: false,
      details: { upstreamCode: 'TRANSPORT' },
    });
    expect(turns).toEqual([expect.objectContaining({ outcome: 'failed', physicalRequests: 1 })]);
  });
});
