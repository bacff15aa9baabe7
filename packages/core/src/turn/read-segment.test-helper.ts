import { vi } from 'vitest';
import type { DecodedStreamEvent, TurnEvent } from '../types/turn-event.js';
import { EventChannel, type HandOverListener } from './event-channel.js';
import { AbortRace } from './race-abort.js';
import { readSegment, type ReadSegmentOptions, type SegmentFacts } from './read-segment.js';
import { TurnState } from './turn-state.js';

// What the readSegment tests share: decoders scripted by hand or by wire
// read, hosts that pull again at once, the reader's options.

/** The segment's facts once it ended; rejects with what a read or the host's pull threw. */
export function readSegmentFacts(options: ReadSegmentOptions): Promise<SegmentFacts> {
  return new Promise<SegmentFacts>((resolve, reject) => readSegment(options, { onSegmentEnd: resolve, onSegmentFailed: reject }));
}

export const never = <T>(): Promise<T> => new Promise<T>(() => undefined);

/** A decoder whose `next()` results the test settles by hand. */
export function scriptedEvents() {
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

/**
 * The host pulled again, as EventChannel.pull tells the listener: the event
 * `resume()` returns goes to the host at once, with the same listener.
 */
export function pullAgain(channel: ReadSegmentOptions['channel'], listener: HandOverListener): void {
  const next = listener.resume();
  if (next !== undefined) channel.handOver(next, listener);
}

export function options(state: TurnState, events: AsyncIterable<DecodedStreamEvent>, deliver: (event: TurnEvent) => Promise<void>): ReadSegmentOptions {
  const channel: ReadSegmentOptions['channel'] = {
    handOver: (event, listener) => void deliver(event).then(() => pullAgain(channel, listener), (error: Error) => listener.stop(error)),
  };
  return {
    events,
    race: new AbortRace(state),
    channel,
    notices: { addWarning: () => undefined, noteMetadata: () => undefined },
    now: () => 0,
    forwardToolCalls: true,
    blockIdPrefix: '',
    keepReasoning: true,
    reasoningMaxChars: 131_072,
  };
}

export const newState = (): TurnState => new TurnState(new EventChannel({ lastStep: () => never() }), undefined);

/** A host that takes every event and pulls again at once. */
export const pullEveryEvent: ReadSegmentOptions['channel'] = { handOver: (_event, listener) => queueMicrotask(() => pullAgain(pullEveryEvent, listener)) };

/**
 * A decoder that yields `batches`, one wire read each: `next()` gives a batch's
 * first event and `takeBuffered` the rest, as core's decodeSseStream does.
 * `onRead(k)` runs as read k arrives.
 */
export function wireReads(batches: DecodedStreamEvent[][], onRead: (read: number) => void = () => undefined) {
  let reads = 0;
  let index = 0;
  let taken = 0;
  const take = (): DecodedStreamEvent | undefined => {
    const event = batches[reads - 1]?.[index];
    if (event !== undefined) {
      index += 1;
      taken += 1;
    }
    return event;
  };
  const iterator = {
    next: async (): Promise<IteratorResult<DecodedStreamEvent>> => {
      reads += 1;
      index = 0;
      if (reads > batches.length) return { done: true, value: undefined };
      onRead(reads - 1);
      return { done: false, value: take()! };
    },
    takeBuffered: take,
  };
  return { events: { [Symbol.asyncIterator]: () => iterator }, reads: () => reads, taken: () => taken };
}

/** A decoder whose first read yields a whole batch. */
export const batchedEvents = (batch: DecodedStreamEvent[]) => wireReads([batch]);

/** Every event the host was handed, pulling again at once. */
export function recordingChannel(): { channel: ReadSegmentOptions['channel']; handed: TurnEvent[] } {
  const handed: TurnEvent[] = [];
  const channel: ReadSegmentOptions['channel'] = {
    handOver: (event, listener) => {
      handed.push(event);
      queueMicrotask(() => pullAgain(channel, listener));
    },
  };
  return { handed, channel };
}
