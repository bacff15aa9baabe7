import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { SseResponseWriter } from './sse-response-writer.js';

/** The part of ServerResponse the writer uses, recording each write call (one write = one HTTP chunk). */
class RecordingResponse extends EventEmitter {
  readonly writes: Array<string | Uint8Array> = [];
  corked = 0;
  ended = false;
  destroyed = false;
  writable = true;
  write(chunk: string | Uint8Array): boolean {
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

  it('byte chunks of one burst are corked into one socket write, in order', async () => {
    const { response, writer } = setup();
    writer.write('first');
    writer.write(new Uint8Array([1]));
    writer.write('x');
    await nextTick();
    expect(response.corked).toBe(1);
    expect(response.writes).toEqual(['first', new Uint8Array([1]), 'x']);
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
});
