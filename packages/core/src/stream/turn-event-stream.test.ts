import { describe, expect, it } from 'vitest';
import type { TurnEvent } from '../types/turn-event.js';
import { ConsumerStoppedError, TurnEventStream } from './turn-event-stream.js';

// The host's iterator over a turn (R4.1 "output reached the host", R6.2):
// the test plays the turn through post/deliver/end and the host through next/return.

const text = (delta: string): TurnEvent => ({ type: 'text-delta', id: 't', delta });

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

async function deltaOf(step: Promise<IteratorResult<TurnEvent, undefined>>): Promise<string | undefined> {
  const { value } = await step;
  return value !== undefined && value.type === 'text-delta' ? value.delta : undefined;
}

/** A stream whose turn the test finishes by hand. */
function createManualTurn() {
  let finish!: () => void;
  const stops: number[] = [];
  const started = { value: false };
  const stream = new TurnEventStream({
    start: () => {
      started.value = true;
      return new Promise<void>((resolve) => (finish = resolve));
    },
    stopByConsumer: () => stops.push(1),
  });
  return { stream, finish: () => finish(), stops, started };
}

describe('TurnEventStream: the host iterator over a turn (R4.1, R6.2)', () => {
  it('starts the turn on the first pull', async () => {
    const turn = createManualTurn();
    expect(turn.started.value).toBe(false);
    void turn.stream.next();
    expect(turn.started.value).toBe(true);
  });

  it('hands events over in the order they came, notices queued behind a delivery included', async () => {
    const { stream } = createManualTurn();
    void stream.deliver(text('a'));
    stream.post(text('notice 1'));
    stream.post(text('notice 2'));
    expect(await deltaOf(stream.next())).toBe('a');
    void stream.deliver(text('b'));
    expect(await deltaOf(stream.next())).toBe('notice 1');
    expect(await deltaOf(stream.next())).toBe('notice 2');
    expect(await deltaOf(stream.next())).toBe('b');
  });

  it('resolves a delivery only when the host pulls again, not when it receives the event', async () => {
    const { stream } = createManualTurn();
    const firstPull = stream.next();
    const delivered = track(stream.deliver(text('a')));
    expect(await deltaOf(firstPull)).toBe('a');
    await settleMicrotasks();
    expect(delivered.state).toBe('pending');
    const secondPull = stream.next();
    await settleMicrotasks();
    expect(delivered.state).toBe('resolved');
    stream.post(text('b'));
    expect(await deltaOf(secondPull)).toBe('b');
  });

  it('serves two next() calls made at once in order, the second acknowledging the first event', async () => {
    const { stream } = createManualTurn();
    const first = stream.next();
    const second = stream.next();
    const deliveredA = track(stream.deliver(text('a')));
    expect(await deltaOf(first)).toBe('a');
    await settleMicrotasks();
    expect(deliveredA.state).toBe('resolved');
    const deliveredB = track(stream.deliver(text('b')));
    expect(await deltaOf(second)).toBe('b');
    await settleMicrotasks();
    expect(deliveredB.state).toBe('pending');
  });

  it('after end, the queue drains first, then done, and it stays done', async () => {
    const turn = createManualTurn();
    const { stream } = turn;
    const pull = track(stream.next());
    stream.post(text('a'));
    stream.post(text('b'));
    stream.end();
    await settleMicrotasks();
    expect(pull.state).toBe('resolved');
    expect(await deltaOf(stream.next())).toBe('b');
    await expect(stream.next()).resolves.toEqual({ done: true, value: undefined });
    await expect(stream.next()).resolves.toEqual({ done: true, value: undefined });
    expect(turn.stops).toEqual([]);
  });

  it('return() after taking an event rejects its delivery (a break is not a consumption) and waits for the turn', async () => {
    const turn = createManualTurn();
    const { stream } = turn;
    const firstPull = stream.next();
    const heldDelivery = track(stream.deliver(text('a')));
    await firstPull;
    const stopping = track(stream.return());
    expect(turn.stops).toEqual([1]);
    await settleMicrotasks();
    expect(heldDelivery.error).toBeInstanceOf(ConsumerStoppedError);
    // Waits for the turn: it is recorded first (R6.2).
    expect(stopping.state).toBe('pending');
    await expect(stream.deliver(text('late'))).rejects.toBeInstanceOf(ConsumerStoppedError);
    turn.finish();
    await settleMicrotasks();
    expect(stopping.state).toBe('resolved');
    await expect(stream.next()).resolves.toEqual({ done: true, value: undefined });
    expect(turn.stops).toEqual([1]);
  });

  it('return() during a pending pull stops the turn at once and ends that pull once the turn ended (R1.6, R8.4)', async () => {
    const turn = createManualTurn();
    const pending = track(turn.stream.next());
    const stopping = track(turn.stream.return());
    expect(turn.stops).toEqual([1]);
    await settleMicrotasks();
    expect([pending.state, stopping.state]).toEqual(['pending', 'pending']);
    turn.finish();
    await settleMicrotasks();
    expect([pending.state, stopping.state]).toEqual(['resolved', 'resolved']);
  });

  it('return() before the first pull still starts the turn, so it is recorded (R6.2)', async () => {
    const turn = createManualTurn();
    const stopping = track(turn.stream.return());
    expect([turn.started.value, turn.stops]).toEqual([true, [1]]);
    turn.finish();
    await settleMicrotasks();
    expect(stopping.state).toBe('resolved');
  });
});
