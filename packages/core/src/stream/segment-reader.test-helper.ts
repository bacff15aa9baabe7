import { vi } from 'vitest';
import type { DecodedStreamEvent, TurnEvent } from '../types/turn-event.js';
import type { SegmentFacts } from './segment-facts.js';
import type { ReadSegmentOptions } from './segment-reader.js';
import { TurnEventStream } from './turn-event-stream.js';

// What the segment reader's tests share: decoders scripted by hand or by
// wire read, the reader's options, and hosts that pull again at once.

export const never = <T>(): Promise<T> => new Promise<T>(() => undefined);

/** A stream whose turn does nothing of its own: the test is the turn and the host. */
export function newStream(): TurnEventStream {
  return new TurnEventStream({ start: () => Promise.resolve(), stopByConsumer: () => undefined });
}

export function readOptions(overrides: Partial<ReadSegmentOptions> = {}): ReadSegmentOptions {
  return {
    signal: new AbortController().signal,
    notices: { addWarning: () => undefined, noteMetadata: () => undefined },
    now: () => 0,
    forwardToolCalls: true,
    blockIdPrefix: '',
    keepReasoning: true,
    reasoningMaxChars: 131_072,
    ...overrides,
  };
}

export interface Reading {
  facts: SegmentFacts;
  handed: TurnEvent[];
}

/** Reads `events` to the segment's end as a host that takes every event and pulls again at once. */
export async function readAll(events: AsyncIterable<DecodedStreamEvent>, overrides: Partial<ReadSegmentOptions> = {}): Promise<Reading> {
  const stream = newStream();
  const facts = stream.readSegment(events, readOptions(overrides));
  facts.then(
    () => stream.end(),
    () => stream.end(),
  );
  const handed: TurnEvent[] = [];
  for await (const event of stream) handed.push(event);
  return { facts: await facts, handed };
}

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

/**
 * The same batches with no synchronous read: every event comes from its own
 * `next()`, the clock moving only when a new batch starts. The reference the
 * reader's batch path is checked against.
 */
export function oneEventPerRead(batches: DecodedStreamEvent[][], onRead: (read: number) => void = () => undefined) {
  const events = (async function* () {
    for (const [read, batch] of batches.entries()) {
      onRead(read);
      yield* batch;
    }
  })();
  return { events };
}

/** A decoder whose first read yields a whole batch. */
export const batchedEvents = (batch: DecodedStreamEvent[]) => wireReads([batch]);
