import { describe, expect, it, vi } from 'vitest';
import { ABORTED, raceAbort } from './race-abort.js';

const never = <T>(): Promise<T> => new Promise<T>(() => undefined);

describe('raceAbort (R1.6: an abort ends an in-flight await at once)', () => {
  it('resolves with the value when the promise wins, and lets the signal go', async () => {
    const controller = new AbortController();
    const remove = vi.spyOn(controller.signal, 'removeEventListener');
    await expect(raceAbort(Promise.resolve(7), controller.signal)).resolves.toBe(7);
    expect(remove).toHaveBeenCalledTimes(1);
  });

  it('resolves ABORTED at once for an await that would never settle, and for any race after the abort', async () => {
    const controller = new AbortController();
    const first = raceAbort(never<number>(), controller.signal);
    const second = raceAbort(never<string>(), controller.signal);
    controller.abort('stop');
    await expect(first).resolves.toBe(ABORTED);
    await expect(second).resolves.toBe(ABORTED);
    await expect(raceAbort(Promise.resolve(1), controller.signal)).resolves.toBe(ABORTED);
  });

  it('reads a rejection caused by the abort as ABORTED, and passes other rejections on', async () => {
    const controller = new AbortController();
    await expect(raceAbort(Promise.reject(new Error('socket')), controller.signal)).rejects.toThrow('socket');
    let rejectLater!: (error: Error) => void;
    const pending = raceAbort(new Promise<number>((_resolve, reject) => (rejectLater = reject)), controller.signal);
    controller.abort();
    rejectLater(new Error('aborted body'));
    await expect(pending).resolves.toBe(ABORTED);
  });
});
