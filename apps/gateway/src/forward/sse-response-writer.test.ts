import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { SseResponseWriter } from './sse-response-writer.js';

/** The part of ServerResponse the writer uses, recording each write call (one write = one HTTP chunk). */
class RecordingResponse extends EventEmitter {
  readonly writes: string[] = [];
  corked = 0;
  ended = false;
  destroyed = false;
  writable = true;
  write(chunk: string): boolean {
    this.writes.push(chunk);
    return this.writable;
  }
  cork(): void {
    this.corked += 1;
  }
  uncork(): void {}
  end(chunk?: string): void {
    if (chunk !== undefined) this.writes.push(chunk);
    this.ended = true;
  }
  destroy(): void {
    this.destroyed = true;
  }
}

const nextTick = (): Promise<void> => new Promise((resolve) => process.nextTick(resolve));

function setup(): { response: RecordingResponse; writer: SseResponseWriter } {
  const response = new RecordingResponse();
  return { response, writer: new SseResponseWriter(response as unknown as ServerResponse) };
}

describe('SseResponseWriter', () => {
  it('R8.2 writes the first chunk at once, then the records of one burst as one chunk, as soon as the burst settles', async () => {
    const { response, writer } = setup();
    writer.write('data: 0\n\n');
    expect(response.writes).toEqual(['data: 0\n\n']);
    writer.write('data: 1\n\n');
    await Promise.resolve();
    writer.write('data: 2\n\n');
    expect(response.writes).toEqual(['data: 0\n\n']);
    await nextTick();
    expect(response.writes).toEqual(['data: 0\n\n', 'data: 1\n\ndata: 2\n\n']);
    writer.write('data: 3\n\n');
    await nextTick();
    expect(response.writes).toEqual(['data: 0\n\n', 'data: 1\n\ndata: 2\n\n', 'data: 3\n\n']);
  });

  it('R8.2 holds the relay until the first chunk has left with node:http\'s uncork, so the first byte does not wait for the rest of a read', async () => {
    const { response, writer } = setup();
    const order: string[] = [];
    // node:http corks the socket on a write and uncorks it on the next tick: this stands for that tick.
    const originalWrite = response.write.bind(response);
    response.write = (chunk: string) => {
      process.nextTick(() => order.push('uncorked'));
      return originalWrite(chunk);
    };
    writer.write('data: 0\n\n');
    const waiting = writer.whenWritable();
    expect(waiting).toBeInstanceOf(Promise);
    await waiting!.then(() => order.push('relay pulls on'));
    expect(order).toEqual(['uncorked', 'relay pulls on']);
    expect(writer.whenWritable()).toBeUndefined();
    // Later chunks do not hold the relay: they are coalesced per burst instead.
    writer.write('data: 1\n\n');
    expect(writer.whenWritable()).toBeUndefined();
  });

  it('a first write the socket refused still waits for drain, not only for the next tick', async () => {
    const { response, writer } = setup();
    response.writable = false;
    writer.write('data: 0\n\n');
    const blocked = writer.whenWritable();
    await nextTick();
    await nextTick();
    expect(writer.whenWritable()).toBe(blocked);
    response.emit('drain');
    await blocked;
    expect(writer.whenWritable()).toBeUndefined();
  });

  it('end() sends what is queued with the final chunk, in order', async () => {
    const { response, writer } = setup();
    writer.write('data: 1\n\n');
    await nextTick();
    writer.write('data: 2\n\n');
    writer.write('data: [DONE]\n\n');
    writer.end();
    expect(response.writes).toEqual(['data: 1\n\n', 'data: 2\n\ndata: [DONE]\n\n']);
    expect(response.ended).toBe(true);
    await nextTick();
    expect(response.writes).toHaveLength(2);
  });

  it('backpressure: whenWritable() waits for drain once a write was refused', async () => {
    const { response, writer } = setup();
    expect(writer.whenWritable()).toBeUndefined();
    response.writable = false;
    writer.write('big');
    await nextTick();
    const blocked = writer.whenWritable();
    expect(blocked).toBeInstanceOf(Promise);
    response.emit('drain');
    await blocked;
    expect(writer.whenWritable()).toBeUndefined();
  });

  it('a closed client releases a waiting relay and gets no further writes', async () => {
    const { response, writer } = setup();
    response.writable = false;
    writer.write('a');
    await nextTick();
    const blocked = writer.whenWritable()!;
    response.destroyed = true;
    response.emit('close');
    await blocked;
    writer.write('b');
    await nextTick();
    expect(response.writes).toEqual(['a']);
  });

  it('R8.2 a long text goes out in parts, each once the socket took the last; later text and the end wait behind it', async () => {
    const { response, writer } = setup();
    const long = 'a'.repeat(1024 * 1024 - 1) + '\u{1F600}' + 'b'.repeat(1024 * 1024 + 10);
    response.writable = false;
    writer.write(long);
    expect(response.writes).toHaveLength(1);
    // Never between the two halves of a surrogate pair.
    expect(response.writes[0]).toBe('a'.repeat(1024 * 1024 - 1) + '\u{1F600}');
    const blocked = writer.whenWritable()!;
    writer.write('data: next\n\n');
    writer.end();
    await nextTick();
    expect(response.writes).toHaveLength(1);
    expect(response.ended).toBe(false);
    response.emit('drain');
    await nextTick();
    expect(response.writes).toHaveLength(2);
    expect(response.writes[1]).toBe('b'.repeat(1024 * 1024));
    response.writable = true;
    response.emit('drain');
    await blocked;
    expect(response.writes.join('')).toBe(long + 'data: next\n\n');
    expect(response.ended).toBe(true);
    expect(writer.whenWritable()).toBeUndefined();
  });
});
