import { getHeapStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { keepInterpreted } from '../internal/v8-probes.test-helper.js';
import type { DecodedStreamEvent, TurnEvent } from '../types/turn-event.js';
import { EventChannel, type HandOverListener } from './event-channel.js';
import { AbortRace } from './race-abort.js';
import { readSegment } from './read-segment.js';
import { TurnState } from './turn-state.js';

// Issue 19: what runTurn's per-event path allocates, measured as the growth
// of V8's used heap over many events (new space only grows between GCs), with
// the code kept in the interpreter: optimised code drops some allocations in
// a small test loop that it still makes on the real path (keepInterpreted).
// A closure over `this` anywhere in `pull` allocated a context on every pull
// (40 bytes; in the bench's optimised engine `next` too), and comparing a
// clock double with a field that started `undefined` boxed it into a new
// heap number on every content event (16 bytes and a builtin call).

const never = <T>(): Promise<T> => new Promise<T>(() => undefined);
const CYCLES = 4_000;
const SAMPLES = 15;

/**
 * Bytes allocated per cycle by `runCycles`, the median over
 * samples: a sample that a scavenge cut short reads low or negative, so it
 * cannot make a broken path pass unless most samples were cut.
 */
function bytesPerCycle(runCycles: (count: number) => void): number {
  keepInterpreted(runCycles);
  runCycles(CYCLES);
  const samples: number[] = [];
  for (let sample = 0; sample < SAMPLES; sample += 1) {
    const before = getHeapStatistics().used_heap_size;
    runCycles(CYCLES);
    samples.push((getHeapStatistics().used_heap_size - before) / CYCLES);
  }
  samples.sort((a, b) => a - b);
  return samples[SAMPLES >> 1]!;
}

const delta: TurnEvent = { type: 'text-delta', id: 't', delta: 'word ' };

describe('runTurn per-event allocation (issue 19)', () => {
  it('a pull allocates its step and its promise, nothing more', () => {
    const channel = new EventChannel({ lastStep: () => never() });
    keepInterpreted(EventChannel.prototype);
    const listener: HandOverListener = { resume: () => undefined, stop: () => undefined };
    const perPull = bytesPerCycle((count) => {
      for (let index = 0; index < count; index += 1) {
        channel.handOver(delta, listener);
        void channel.pull();
      }
    });
    // Node 20 x64, interpreted: 104 bytes (a resolved promise, `{ done, value }`, the loop's own);
    // a context per pull made it 144.
    expect(perPull).toBeGreaterThan(0);
    expect(perPull).toBeLessThan(124);
  });

  it('the reader allocates nothing for a text delta once the host consumed output, with a real clock', async () => {
    const state = new TurnState(new EventChannel({ lastStep: () => never() }), undefined);
    let waiting: HandOverListener | undefined;
    const events = {
      next: () => Promise.resolve({ done: false as const, value: delta as DecodedStreamEvent }),
      // An endless batch: every event the reader takes is the same delta.
      takeBuffered: (): DecodedStreamEvent => delta,
    };
    readSegment(
      {
        events: { [Symbol.asyncIterator]: () => events },
        race: new AbortRace(state),
        channel: { handOver: (_event, listener) => (waiting = listener) },
        notices: { addWarning: () => undefined, noteMetadata: () => undefined },
        // A clock reading that is not a small integer, as Date.now() is not.
        now: () => 1_765_000_000_000.5,
        forwardToolCalls: true,
        blockIdPrefix: '',
        keepReasoning: true,
        reasoningMaxChars: 131_072,
      },
      { onSegmentEnd: () => undefined, onSegmentFailed: () => undefined },
    );
    await Promise.resolve();
    await Promise.resolve();
    const listener = waiting!;
    expect(listener).toBeDefined();
    keepInterpreted(Object.getPrototypeOf(listener) as object);
    // The host takes each event and pulls again: the reader hands over the next one synchronously.
    const perEvent = bytesPerCycle((count) => {
      for (let index = 0; index < count; index += 1) listener.resume();
    });
    // A heap number per event made it 16.
    expect(perEvent).toBeLessThan(8);
    state.stop({ by: 'consumer' });
  });
});
