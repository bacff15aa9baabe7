import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readBodyEvents } from './node-body-stream.js';

/** One PassThrough stands for undici's response body (a node Readable), undecoded. */
function createBody(signal = new AbortController().signal) {
  const source = new PassThrough();
  const body = readBodyEvents(source, source, signal);
  return { source, body };
}

/** Lets node:stream emit what was written (it does so on later ticks), without timers. */
const flushStreamEvents = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('NodeBodyStream (ByteStream bodies, decision 0320): a default reader’s behaviour without a WHATWG ReadableStream', () => {
  it('coalesces what arrived while nobody read into one chunk; bytes left at the end come before done', async () => {
    const { source, body } = createBody();
    const reader = body.getReader();
    source.write('data: 1\n\n');
    source.write('data: 2\n\n');
    source.end('data: 3\n\n');
    await flushStreamEvents();
    const first = await reader.read();
    expect(first.done).toBe(false);
    expect(Buffer.from(first.value!).toString()).toBe('data: 1\n\ndata: 2\n\ndata: 3\n\n');
    expect(await reader.read()).toEqual({ done: true, value: undefined });
  });

  it('a pending read gets the next chunk as it arrives (R8.2), and the end as done', async () => {
    const { source, body } = createBody();
    const reader = body.getReader();
    const pending = reader.read();
    source.write('data: 1\n\n');
    expect(Buffer.from((await pending).value!).toString()).toBe('data: 1\n\n');
    const next = reader.read();
    source.end();
    expect(await next).toEqual({ done: true, value: undefined });
  });

  it('a body cut with bytes queued: the bytes first, then "terminated", and every later read rejects with it', async () => {
    const { source, body } = createBody();
    const reader = body.getReader();
    source.write('data: 1\n\n');
    await flushStreamEvents();
    source.destroy(new Error('socket reset'));
    await flushStreamEvents();
    expect(Buffer.from((await reader.read()).value!).toString()).toBe('data: 1\n\n');
    const thrown = await reader.read().catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(TypeError);
    expect((thrown as TypeError).message).toBe('terminated');
    expect(await reader.read().catch((error: unknown) => error)).toBe(thrown);
  });

  it('an abort (undici destroys the body with the reason) errors the next read with the signal’s reason, dropping queued bytes', async () => {
    const controller = new AbortController();
    const { source, body } = createBody(controller.signal);
    const reader = body.getReader();
    source.write('data: 1\n\n');
    await flushStreamEvents();
    controller.abort('stop');
    source.destroy(new Error('stop'));
    await flushStreamEvents();
    expect(await reader.read().catch((error: unknown) => error)).toBe('stop');
  });

  it('a body closed before its end without an error is cut ("terminated"), not done', async () => {
    const { source, body } = createBody();
    const reader = body.getReader();
    const pending = reader.read().catch((error: unknown) => error);
    source.destroy();
    expect(await pending).toMatchObject({ message: 'terminated', cause: { code: 'UND_ERR_SOCKET' } });
  });

  it('one reader at a time; cancel ends pending reads and destroys the response', async () => {
    const { source, body } = createBody();
    const reader = body.getReader();
    expect(body.locked).toBe(true);
    expect(() => body.getReader()).toThrow(TypeError);
    const pending = reader.read();
    await reader.cancel();
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(source.destroyed).toBe(true);
    reader.releaseLock();
    expect(body.locked).toBe(false);
    expect(await body.getReader().read()).toEqual({ done: true, value: undefined });
  });
});
