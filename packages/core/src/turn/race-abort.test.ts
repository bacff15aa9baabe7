import { describe, expect, it, vi } from 'vitest';
import { ABORTED, AbortRace, type StopSource } from './race-abort.js';
import { EventChannel } from './event-channel.js';
import { TurnState } from './turn-state.js';

const never = <T>(): Promise<T> => new Promise<T>(() => undefined);

/** A plain AbortSignal as a stop source (one `abort` listener while subscribed): the race's rules, apart from TurnState. */
function stopSourceOf(signal: AbortSignal): StopSource {
  return {
    signal,
    onStop(listener) {
      signal.addEventListener('abort', listener, { once: true });
    },
    offStop(listener) {
      signal.removeEventListener('abort', listener);
    },
  };
}

describe('AbortRace (R1.6: an abort ends an in-flight await at once)', () => {
  it('resolves with the value when the promise wins', async () => {
    const race = new AbortRace(stopSourceOf(new AbortController().signal));
    await expect(race.race(Promise.resolve(7))).resolves.toBe(7);
  });

  it('resolves ABORTED at once for an await that would never settle', async () => {
    const controller = new AbortController();
    const race = new AbortRace(stopSourceOf(controller.signal));
    const first = race.race(never<number>());
    const second = race.race(never<string>());
    controller.abort('stop');
    await expect(first).resolves.toBe(ABORTED);
    await expect(second).resolves.toBe(ABORTED);
    await expect(race.race(Promise.resolve(1))).resolves.toBe(ABORTED);
  });

  it('reads a rejection caused by the abort as ABORTED, and passes other rejections on', async () => {
    const controller = new AbortController();
    const race = new AbortRace(stopSourceOf(controller.signal));
    await expect(race.race(Promise.reject(new Error('socket')))).rejects.toThrow('socket');
    let rejectLater!: (error: Error) => void;
    const pending = race.race(new Promise<number>((_resolve, reject) => (rejectLater = reject)));
    controller.abort();
    rejectLater(new Error('aborted body'));
    await expect(pending).resolves.toBe(ABORTED);
  });

  it('adds one abort listener for any number of races and removes it on release', async () => {
    const controller = new AbortController();
    const add = vi.spyOn(controller.signal, 'addEventListener');
    const remove = vi.spyOn(controller.signal, 'removeEventListener');
    const race = new AbortRace(stopSourceOf(controller.signal));
    for (let index = 0; index < 50; index += 1) await race.race(Promise.resolve(index));
    expect(add).toHaveBeenCalledTimes(1);
    race.release();
    expect(remove).toHaveBeenCalledTimes(1);
    controller.abort();
  });

  it("on runTurn's own stop (TurnState) adds no EventTarget listener, settles at once and unsubscribes on release (decision 0212)", async () => {
    const state = new TurnState(new EventChannel({ lastStep: () => new Promise(() => undefined) }), undefined);
    const add = vi.spyOn(state.signal, 'addEventListener');
    const race = new AbortRace(state);
    await expect(race.race(Promise.resolve(1))).resolves.toBe(1);
    const pending = race.race(never<number>());
    state.stop({ by: 'consumer' });
    await expect(pending).resolves.toBe(ABORTED);
    expect(state.signal.aborted).toBe(true);
    expect(add).not.toHaveBeenCalled();

    const released = new TurnState(new EventChannel({ lastStep: () => new Promise(() => undefined) }), undefined);
    const listener = vi.fn();
    const other = vi.fn();
    released.onStop(listener);
    released.onStop(other);
    released.offStop(listener);
    released.stop({ by: 'consumer' });
    expect(listener).not.toHaveBeenCalled();
    expect(other).toHaveBeenCalledTimes(1);
    const late = vi.fn();
    released.onStop(late);
    expect(late).toHaveBeenCalledTimes(1);
    await expect(new AbortRace(released).race(never<number>())).resolves.toBe(ABORTED);
  });

  it("TurnState's stop calls every listener subscribed when it began, one slot or more", () => {
    const state = new TurnState(new EventChannel({ lastStep: () => new Promise(() => undefined) }), undefined);
    const calls: string[] = [];
    const second = () => calls.push('second');
    const third = () => calls.push('third');
    state.onStop(() => {
      calls.push('first');
      state.offStop(second);
    });
    state.onStop(second);
    state.onStop(third);
    state.stop({ by: 'consumer' });
    expect(calls).toEqual(['first', 'second', 'third']);
    state.stop({ by: 'consumer' });
    expect(calls).toHaveLength(3);
  });
});
