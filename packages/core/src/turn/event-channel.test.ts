import { describe, expect, it, vi } from 'vitest';
import type { TurnEvent } from '../types/turn-event.js';
import { ConsumerStoppedError, EventChannel, type HandOverListener } from './event-channel.js';

const text = (delta: string): TurnEvent => ({ type: 'text-delta', id: 't', delta });
const listener = () => ({ resume: vi.fn<HandOverListener['resume']>(), stop: vi.fn<HandOverListener['stop']>() });
const lastStep = { lastStep: () => Promise.resolve({ done: true as const, value: undefined }) };

async function deltaOf(step: Promise<IteratorResult<TurnEvent, undefined>>): Promise<string | undefined> {
  const { value } = await step;
  return value !== undefined && value.type === 'text-delta' ? value.delta : undefined;
}

describe('EventChannel: the rendezvous between runTurn and the host (issue 4 row 15, issue 19)', () => {
  it('hands events over in the order they came, notices posted behind a waiting event included', async () => {
    const channel = new EventChannel(lastStep);
    const first = listener();
    channel.handOver(text('a'), first);
    channel.post(text('notice 1'));
    channel.post(text('notice 2'));
    expect(await deltaOf(channel.pull())).toBe('a');
    channel.handOver(text('b'), listener());
    expect(await deltaOf(channel.pull())).toBe('notice 1');
    expect(first.resume).toHaveBeenCalledTimes(1);
    channel.post(text('notice 3'));
    expect(await deltaOf(channel.pull())).toBe('notice 2');
    expect(await deltaOf(channel.pull())).toBe('b');
    expect(await deltaOf(channel.pull())).toBe('notice 3');
  });

  it('acknowledges an event only when the host pulls again, inside that pull', async () => {
    const channel = new EventChannel(lastStep);
    const handed = listener();
    channel.handOver(text('a'), handed);
    await channel.pull();
    expect(handed.resume).not.toHaveBeenCalled();
    const next = channel.pull();
    expect(handed.resume).toHaveBeenCalledTimes(1);
    channel.handOver(text('b'), listener());
    expect(await deltaOf(next)).toBe('b');
  });

  it('the event a listener returns from resume() goes to that same pull, with that listener (issue 19)', async () => {
    const channel = new EventChannel(lastStep);
    const producer = listener();
    producer.resume.mockReturnValueOnce(text('b')).mockReturnValueOnce(undefined);
    channel.handOver(text('a'), producer);
    expect(await deltaOf(channel.pull())).toBe('a');
    // The host pulled again: 'a' is acknowledged and 'b' comes back in the same call.
    expect(await deltaOf(channel.pull())).toBe('b');
    expect(producer.resume).toHaveBeenCalledTimes(1);
    // 'b' is held with the same listener: the next pull acknowledges it.
    const after = channel.pull();
    expect(producer.resume).toHaveBeenCalledTimes(2);
    channel.handOver(text('c'), producer);
    expect(await deltaOf(after)).toBe('c');
  });

  it('an event returned from resume() goes behind the notices queued before it', async () => {
    const channel = new EventChannel(lastStep);
    const producer = listener();
    producer.resume.mockReturnValueOnce(text('b'));
    channel.handOver(text('a'), producer);
    await channel.pull();
    channel.post(text('notice'));
    expect(await deltaOf(channel.pull())).toBe('notice');
    expect(await deltaOf(channel.pull())).toBe('b');
  });

  it('a host that stops stops every waiting producer, the one whose event it holds included', async () => {
    const channel = new EventChannel(lastStep);
    const held = listener();
    const queued = [listener(), listener()];
    channel.handOver(text('a'), held);
    await channel.pull();
    channel.handOver(text('b'), queued[0]!);
    channel.handOver(text('c'), queued[1]!);
    channel.stopConsumer();
    for (const each of [held, ...queued]) {
      expect(each.resume).not.toHaveBeenCalled();
      expect(each.stop).toHaveBeenCalledWith(expect.any(ConsumerStoppedError));
    }
    const late = listener();
    channel.handOver(text('d'), late);
    expect(late.stop).toHaveBeenCalledTimes(1);
  });

  it('a pull waiting when the host stops ends with the last step', async () => {
    const channel = new EventChannel(lastStep);
    const waiting = channel.pull();
    channel.stopConsumer();
    expect(await waiting).toEqual({ done: true, value: undefined });
  });

  it('after close, the queue drains first, then the end’s last step', async () => {
    const channel = new EventChannel(lastStep);
    channel.handOver(text('a'), listener());
    channel.post(text('b'));
    channel.close();
    expect(await deltaOf(channel.pull())).toBe('a');
    expect(await deltaOf(channel.pull())).toBe('b');
    expect(await channel.pull()).toEqual({ done: true, value: undefined });
  });
});
