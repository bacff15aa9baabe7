import { describe, expect, it, vi } from 'vitest';
import type { DecodedStreamEvent, TurnEvent } from '../types/turn-event.js';
import { EventChannel } from './event-channel.js';
import { AbortRace } from './race-abort.js';
import { readSegment, type ReadSegmentOptions } from './read-segment.js';
import { TurnState } from './turn-state.js';

const never = <T>(): Promise<T> => new Promise<T>(() => undefined);

/** A decoder whose `next()` results the test settles by hand. */
function scriptedEvents() {
  const pending: Array<(step: IteratorResult<DecodedStreamEvent>) => void> = [];
  let nextCalls = 0;
  const returned = vi.fn(async () => ({ done: true as const, value: undefined }));
  const events: AsyncIterable<DecodedStreamEvent> = {
    [Symbol.asyncIterator]: () => ({
      next: () => {
        nextCalls += 1;
        return new Promise<IteratorResult<DecodedStreamEvent>>((resolve) => pending.push(resolve));
      },
      return: returned,
    }),
  };
  return { events, pending, returned, nextCalls: () => nextCalls };
}

function options(state: TurnState, events: AsyncIterable<DecodedStreamEvent>, deliver: (event: TurnEvent) => Promise<void>): ReadSegmentOptions {
  return {
    events,
    race: new AbortRace(state),
    channel: { handOver: (event, listener) => void deliver(event).then(() => listener.resume(), (error: Error) => listener.stop(error)) },
    notices: { addWarning: () => undefined, noteMetadata: () => undefined },
    now: () => 0,
    forwardToolCalls: true,
    blockIdPrefix: '',
  };
}

const newState = (): TurnState => new TurnState(new EventChannel({ lastStep: () => never() }), undefined);

describe('readSegment aborts (R1.6: at once, one subscription per segment)', () => {
  it('ends at once on an abort while the next chunk is awaited, and closes the decoder', async () => {
    const state = newState();
    const wire = scriptedEvents();
    const facts = readSegment(options(state, wire.events, async () => undefined));
    await Promise.resolve();
    expect(wire.nextCalls()).toBe(1);
    state.stop({ by: 'consumer' });
    await expect(facts).resolves.toMatchObject({ end: 'aborted', outputConsumed: false });
    await vi.waitFor(() => expect(wire.returned).toHaveBeenCalledTimes(1));
    // The chunk that arrives late is never read into the facts nor handed over.
    wire.pending[0]!({ done: false, value: { type: 'text-delta', id: 't', delta: 'late' } });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect((await facts).textProduced).toBe(false);
    expect(wire.nextCalls()).toBe(1);
  });

  it('ends at once on an abort while the host holds an event', async () => {
    const state = newState();
    const wire = scriptedEvents();
    const delivered: TurnEvent[] = [];
    const facts = readSegment(
      options(state, wire.events, (event) => {
        delivered.push(event);
        return never();
      }),
    );
    await Promise.resolve();
    wire.pending[0]!({ done: false, value: { type: 'text-delta', id: 't', delta: 'held' } });
    await vi.waitFor(() => expect(delivered).toHaveLength(1));
    state.stop({ by: 'host-signal', reason: 'user' });
    await expect(facts).resolves.toMatchObject({ end: 'aborted', textProduced: true });
  });

  it('subscribes to the stop once for a whole segment of events, and not at all after it ended', async () => {
    const state = newState();
    const onStop = vi.spyOn(state, 'onStop');
    const events: DecodedStreamEvent[] = [];
    for (let index = 0; index < 100; index += 1) events.push({ type: 'text-delta', id: 't', delta: `w${index} ` });
    events.push({ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' } }, { type: 'stream-end', terminalFrameSeen: true });
    const source = (async function* () {
      yield* events;
    })();
    const facts = await readSegment(options(state, source, async () => undefined));
    expect(facts).toMatchObject({ end: 'terminal', terminalFrameSeen: true, nonWhitespaceText: true });
    expect(onStop).toHaveBeenCalledTimes(1);
  });

  it('an abort before the segment starts reads nothing', async () => {
    const state = newState();
    state.stop({ by: 'consumer' });
    const wire = scriptedEvents();
    await expect(readSegment(options(state, wire.events, async () => undefined))).resolves.toMatchObject({ end: 'aborted' });
    expect(wire.nextCalls()).toBe(0);
  });
});
