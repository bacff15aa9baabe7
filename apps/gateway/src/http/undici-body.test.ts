import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createUndiciBody } from './undici-body.js';

/** A body as the dispatch handler makes it, with undici's socket controls recorded. */
function createBody(contentEncoding?: string) {
  const calls: string[] = [];
  const body = createUndiciBody(
    contentEncoding,
    () => calls.push('resume socket'),
    (reason) => calls.push(`abort: ${reason.message}`),
    new AbortController().signal,
  );
  return { ...body, calls };
}

const text = (chunk: Uint8Array | undefined) => Buffer.from(chunk ?? new Uint8Array()).toString();

describe('createUndiciBody: what undici feeds, as the stream runTurn reads (decision 0220)', () => {
  it('an uncompressed body pauses the socket past 1 MiB read ahead, and the next read resumes it once', async () => {
    const { feed, stream, calls } = createBody();
    const half = Buffer.alloc(512 * 1024, 'a');
    expect(feed.push(half)).toBe(true);
    expect(feed.push(half)).toBe(false);
    expect(calls).toEqual([]);
    const reader = stream.getReader();
    const first = await reader.read();
    expect(first.value?.byteLength).toBe(1024 * 1024);
    expect(calls).toEqual(['resume socket']);
    expect(feed.push(Buffer.from('tail'))).toBe(true);
    feed.end();
    expect(text((await reader.read()).value)).toBe('tail');
    expect(await reader.read()).toEqual({ done: true, value: undefined });
  });

  it('a failure errors the stream like undici ("terminated") after the bytes before it; one after the end changes nothing', async () => {
    const cut = createBody();
    cut.feed.push(Buffer.from('data: 1\n\n'));
    cut.feed.fail(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }));
    const reader = cut.stream.getReader();
    expect(text((await reader.read()).value)).toBe('data: 1\n\n');
    await expect(reader.read()).rejects.toMatchObject({ name: 'TypeError', message: 'terminated', cause: { code: 'UND_ERR_SOCKET' } });

    const complete = createBody();
    complete.feed.end();
    complete.feed.fail(new Error('late'));
    expect(await complete.stream.getReader().read()).toEqual({ done: true, value: undefined });
  });

  it('cancelling before the end aborts the request (the connection is never reused); after the end it does not', async () => {
    const open = createBody();
    await open.stream.cancel();
    expect(open.calls).toEqual(['abort: The response body was cancelled.']);

    const ended = createBody();
    ended.feed.end();
    await ended.stream.cancel();
    expect(ended.calls).toEqual([]);
  });

  it('a gzip body goes through the decompressor before the reader', async () => {
    const { feed, stream } = createBody('gzip');
    const packed = gzipSync('data: {"ok":true}\n\n');
    feed.push(packed.subarray(0, 5));
    feed.push(packed.subarray(5));
    feed.end();
    const reader = stream.getReader();
    let received = '';
    for (let step = await reader.read(); step.done !== true; step = await reader.read()) received += text(step.value);
    expect(received).toBe('data: {"ok":true}\n\n');
  });
});
