import { describe, expect, it } from 'vitest';
import type { TurnEvent } from '../types/turn-event.js';
import { createTurnRun } from './create-turn-run.js';
import { ConsumerStoppedError, type EventChannel } from './event-channel.js';
import type { TurnResult } from './turn-result.js';

const text = (delta: string): TurnEvent => ({ type: 'text-delta', id: 't0', delta });
const RESULT = { outcome: 'ok' } as unknown as TurnResult;

/** Lets every queued microtask (and the ones they queue) run. */
const settleMicrotasks = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function track<T>(promise: Promise<T>): { state: 'pending' | 'resolved' | 'rejected'; error?: unknown } {
  const status: { state: 'pending' | 'resolved' | 'rejected'; error?: unknown } = { state: 'pending' };
  promise.then(
    () => (status.state = 'resolved'),
    (error: unknown) => Object.assign(status, { state: 'rejected', error }),
  );
  return status;
}

/** An engine the test drives by hand through the channel it is given. */
function createManualEngine() {
  let channel!: EventChannel;
  let finish!: () => void;
  const stops: number[] = [];
  const started = { value: false };
  const run = createTurnRun({
    execute: (given) => {
      channel = given;
      started.value = true;
      return new Promise<TurnResult>((resolve) => (finish = () => resolve(RESULT)));
    },
    stopByConsumer: () => stops.push(1),
  });
  return { run, channel: () => channel, finish: () => finish(), stops, started };
}

describe('createTurnRun — the host iterator over runTurn events (R4 "output reached the host", R6.2)', () => {
  it('resolves a delivery only when the host pulls again, not when it receives the event', async () => {
    const engine = createManualEngine();
    const iterator = engine.run[Symbol.asyncIterator]();
    const firstPull = iterator.next();
    expect(engine.started.value).toBe(true);
    const delivered = track(engine.channel().deliver(text('a')));
    await expect(firstPull).resolves.toEqual({ done: false, value: text('a') });
    await settleMicrotasks();
    expect(delivered.state).toBe('pending');
    const secondPull = iterator.next();
    await settleMicrotasks();
    expect(delivered.state).toBe('resolved');
    engine.channel().post(text('b'));
    await expect(secondPull).resolves.toEqual({ done: false, value: text('b') });
  });

  it('serves two next() calls made at once in order, the second acknowledging the first event', async () => {
    const engine = createManualEngine();
    const iterator = engine.run[Symbol.asyncIterator]();
    const first = iterator.next();
    const second = iterator.next();
    const deliveredA = track(engine.channel().deliver(text('a')));
    await expect(first).resolves.toEqual({ done: false, value: text('a') });
    await settleMicrotasks();
    expect(deliveredA.state).toBe('resolved');
    const deliveredB = track(engine.channel().deliver(text('b')));
    await expect(second).resolves.toEqual({ done: false, value: text('b') });
    await settleMicrotasks();
    expect(deliveredB.state).toBe('pending');
  });

  it('ends with done only after the engine settled, and stays done', async () => {
    const engine = createManualEngine();
    const iterator = engine.run[Symbol.asyncIterator]();
    const pull = track(iterator.next());
    await settleMicrotasks();
    engine.channel().close();
    await settleMicrotasks();
    expect(pull.state).toBe('pending');
    engine.finish();
    await settleMicrotasks();
    expect(pull.state).toBe('resolved');
    await expect(iterator.next()).resolves.toEqual({ done: true, value: undefined });
    expect(engine.stops).toEqual([]);
  });

  it('return() after taking an event rejects its delivery: a break is not a consumption (R4)', async () => {
    const engine = createManualEngine();
    const iterator = engine.run[Symbol.asyncIterator]();
    const firstPull = iterator.next();
    const heldDelivery = track(engine.channel().deliver(text('a')));
    await firstPull;
    const stopping = track(iterator.return!());
    expect(engine.stops).toEqual([1]);
    await settleMicrotasks();
    expect(heldDelivery.error).toBeInstanceOf(ConsumerStoppedError);
    expect(stopping.state).toBe('pending'); // waits for the engine: the turn is recorded first (R6.2)
    await expect(engine.channel().deliver(text('late'))).rejects.toBeInstanceOf(ConsumerStoppedError);
    engine.finish();
    await settleMicrotasks();
    expect(stopping.state).toBe('resolved');
    await expect(iterator.next()).resolves.toEqual({ done: true, value: undefined });
    expect(engine.stops).toEqual([1]);
  });

  it('return() during a pending pull stops the turn at once and ends that pull (R1.6, R8.4)', async () => {
    const engine = createManualEngine();
    const iterator = engine.run[Symbol.asyncIterator]();
    const pending = track(iterator.next());
    const stopping = track(iterator.return!());
    expect(engine.stops).toEqual([1]);
    await settleMicrotasks();
    expect([pending.state, stopping.state]).toEqual(['pending', 'pending']);
    engine.finish();
    await settleMicrotasks();
    expect([pending.state, stopping.state]).toEqual(['resolved', 'resolved']);
    expect(engine.stops).toEqual([1]);
  });
});
