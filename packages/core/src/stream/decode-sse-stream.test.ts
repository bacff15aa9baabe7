import { describe, expect, it } from 'vitest';
import { decodeSseStream, type LastRecordRule } from './decode-sse-stream.js';

/** A body whose chunks are pulled one by one; `cancelled` tells whether the upstream was released. */
function createBody(chunks: string[], failAfter?: Error) {
  const bytes = new TextEncoder();
  let index = 0;
  const state = { cancelled: false, pulls: 0 };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      state.pulls += 1;
      if (index < chunks.length) controller.enqueue(bytes.encode(chunks[index++]!));
      else if (failAfter !== undefined) controller.error(failAfter);
      else controller.close();
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { body, state };
}

function decode(body: ReadableStream<Uint8Array>, lastRecord: LastRecordRule = 'drop') {
  return decodeSseStream<string>(body, {
    decoder: {
      pushRecordEvents: (_eventName, data, events) => events.push(`r:${data}`),
      pushEndEvents: (events) => events.push('end'),
    },
    lastRecord,
  });
}

async function collect(iterable: AsyncIterable<string>): Promise<string[]> {
  const items: string[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

describe('decodeSseStream (R7.2: one shared iterator for the three decoders)', () => {
  it('serves the records of every read in order, then the end events last', async () => {
    const { body, state } = createBody(['data: a\n\ndata: b\n\n', 'data: c\n', '\n']);
    expect(await collect(decode(body))).toEqual(['r:a', 'r:b', 'r:c', 'end']);
    expect(state.cancelled).toBe(false);
  });

  it('applies each last-record rule to a record the body ends without its blank line', async () => {
    expect(await collect(decode(createBody(['data: a\n\ndata: b\n']).body, 'drop')), 'drop').toEqual(['r:a', 'end']);
    expect(await collect(decode(createBody(['data: a\n\ndata: b\n']).body, 'complete-lines'))).toEqual(['r:a', 'r:b', 'end']);
    expect(await collect(decode(createBody(['data: a\n\ndata: b']).body, 'complete-lines'))).toEqual(['r:a', 'end']);
    expect(await collect(decode(createBody(['data: a\n\ndata: b']).body, 'always'))).toEqual(['r:a', 'r:b', 'end']);
  });

  it('keeps a multi-byte character split across reads intact', async () => {
    const bytes = new TextEncoder().encode('data: é€\n\n');
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const byte of bytes) controller.enqueue(Uint8Array.of(byte));
        controller.close();
      },
    });
    expect(await collect(decode(body))).toEqual(['r:é€', 'end']);
  });

  it('return() cancels the body, drops the rest of the batch, and ends the iteration', async () => {
    const { body, state } = createBody(['data: a\n\ndata: b\n\n', 'data: c\n\n']);
    const iterator = decode(body);
    expect(await iterator.next()).toEqual({ done: false, value: 'r:a' });
    expect(await iterator.return()).toEqual({ done: true, value: undefined });
    expect(state.cancelled).toBe(true);
    expect(body.locked).toBe(false);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it('return() before the first next() still releases the upstream', async () => {
    const { body, state } = createBody(['data: a\n\n']);
    await decode(body).return();
    expect(state.cancelled).toBe(true);
  });

  it('throw() cancels the body and rejects with the given error', async () => {
    const { body, state } = createBody(['data: a\n\n', 'data: b\n\n']);
    const iterator = decode(body);
    await iterator.next();
    await expect(iterator.throw(new Error('stop'))).rejects.toThrow('stop');
    expect(state.cancelled).toBe(true);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it('serves concurrent next() calls in order, each once', async () => {
    const { body } = createBody(['data: a\n\n', 'data: b\n\ndata: c\n\n']);
    const iterator = decode(body);
    const results = await Promise.all([iterator.next(), iterator.next(), iterator.next(), iterator.next(), iterator.next()]);
    expect(results).toEqual([
      { done: false, value: 'r:a' },
      { done: false, value: 'r:b' },
      { done: false, value: 'r:c' },
      { done: false, value: 'end' },
      { done: true, value: undefined },
    ]);
  });

  it('a return() called while a next() is pending settles after it, in order', async () => {
    const { body, state } = createBody(['data: a\n\n', 'data: b\n\n']);
    const iterator = decode(body);
    const first = iterator.next();
    const closed = iterator.return();
    expect(await first).toEqual({ done: false, value: 'r:a' });
    expect(await closed).toEqual({ done: true, value: undefined });
    expect(state.cancelled).toBe(true);
  });

  it('a failing body rejects after every earlier event, then the iteration is over', async () => {
    const { body } = createBody(['data: a\n\ndata: b\n\n'], new Error('socket reset'));
    const iterator = decode(body);
    expect(await iterator.next()).toEqual({ done: false, value: 'r:a' });
    expect(await iterator.next()).toEqual({ done: false, value: 'r:b' });
    await expect(iterator.next()).rejects.toThrow('socket reset');
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it('a body that fails right after a record closed by bare CRs serves that record, then the failure (R8.12)', async () => {
    for (const lastChunk of ['data: b\r\r', 'data: b\r', '\r']) {
      const chunks = lastChunk === '\r' ? ['data: a\r\rdata: b\r', '\r'] : lastChunk === 'data: b\r' ? ['data: a\r\r', lastChunk, '\r'] : ['data: a\r\r', lastChunk];
      const { body } = createBody(chunks, new Error('socket reset'));
      const iterator = decode(body);
      expect(await iterator.next(), JSON.stringify(chunks)).toEqual({ done: false, value: 'r:a' });
      expect(await iterator.next(), JSON.stringify(chunks)).toEqual({ done: false, value: 'r:b' });
      await expect(iterator.next()).rejects.toThrow('socket reset');
      expect(await iterator.next()).toEqual({ done: true, value: undefined });
    }
    // A line cut before its blank line is still no record.
    const { body } = createBody(['data: a\r\rdata: b\r'], new Error('socket reset'));
    const iterator = decode(body);
    expect(await iterator.next()).toEqual({ done: false, value: 'r:a' });
    await expect(iterator.next()).rejects.toThrow('socket reset');
  });

  it('calls markBodyEnd before the records flushed at the end of the body', async () => {
    const seen: string[] = [];
    let ended = false;
    const iterator = decodeSseStream<string>(createBody(['data: a\n\ndata: b']).body, {
        decoder: {
        pushRecordEvents: (_eventName, data) => seen.push(`${data}@${ended ? 'end' : 'body'}`),
        pushEndEvents: (events) => events.push('end'),
        markBodyEnd: () => {
          ended = true;
        },
      },
      lastRecord: 'always',
    });
    await collect(iterator);
    expect(seen).toEqual(['a@body', 'b@end']);
  });

  it('frames one large read a part at a time, as the events are pulled: the first waits only for its own part (R8.2)', async () => {
    // 2,000 records of about 40 bytes in ONE read (≈ 80 KiB), as a fast plaintext upstream's first read holds them.
    const records = Array.from({ length: 2000 }, (_, index) => `data: {"n":${index},"pad":"${'x'.repeat(20)}"}\n\n`);
    const { body } = createBody([records.join('')]);
    const framed: number[] = [];
    const iterator = decodeSseStream<string>(body, {
      decoder: {
        pushRecordEvents: (_eventName, data, events) => events.push(data),
        pushEndEvents: (events) => events.push('end'),
      },
      lastRecord: 'drop',
      records: { onRecord: () => framed.push(framed.length) },
    });
    expect(await iterator.next()).toEqual({ done: false, value: records[0]!.slice(6, -2) });
    // Only the first part's records were decoded (and shown to the observer) before the first event.
    expect(framed.length).toBeGreaterThan(0);
    expect(framed.length).toBeLessThan(600);
    const rest = await collect(iterator);
    expect(rest).toHaveLength(2000);
    expect(rest.slice(0, -1)).toEqual(records.slice(1).map((record) => record.slice(6, -2)));
    expect(framed).toHaveLength(2000);
  });

  it('a record, a line end and a multi-byte character split between two parts of one read arrive whole and once (LF, CR, CRLF)', async () => {
    for (const end of ['\n', '\r', '\r\n']) {
      const record = (index: number) => `data: ${'é'.repeat(index % 7)}${index}€${'y'.repeat(index % 50)}${end}${end}`;
      const text = Array.from({ length: 3000 }, (_, index) => record(index)).join('');
      const { body } = createBody([text, text]);
      const items = await collect(decode(body));
      const expected = Array.from({ length: 3000 }, (_, index) => `r:${record(index).slice(6, -2 * end.length)}`);
      expect(items, JSON.stringify(end)).toEqual([...expected, ...expected, 'end']);
    }
  });

  it('a CRLF split exactly between two parts of one read is one line end, not two', async () => {
    // The first line's CR is the part's last byte (16 KiB parts), its LF the next part's first.
    const first = `data: ${'x'.repeat(16_384 - 'data: '.length - 1)}`;
    const text = `${first}\r\ndata: b\r\n\r\ndata: c\r\n\r\n`;
    expect(text.charCodeAt(16_383)).toBe(13);
    const items = await collect(decode(createBody([text]).body));
    expect(items).toEqual([`r:${first.slice(6)}\nb`, 'r:c', 'end']);
    // The records' own text, as the gateway relays it (R8.13): whole, once, in order.
    const raw: string[] = [];
    const observed = decodeSseStream<string>(createBody([text]).body, {
      decoder: { pushRecordEvents: (_eventName, data, events) => events.push(data), pushEndEvents: () => undefined },
      lastRecord: 'drop',
      records: { onRecord: (record) => raw.push(record.raw) },
    });
    await collect(observed);
    expect(raw).toEqual([`${first}\r\ndata: b\r\n\r\n`, 'data: c\r\n\r\n']);
  });

  it('a decoder that throws in a later part of a read fails the iteration after the events before it', async () => {
    const text = Array.from({ length: 5000 }, (_, index) => `data: ${index}\n\n`).join('');
    const iterator = decodeSseStream<string>(createBody([text]).body, {
      decoder: {
        pushRecordEvents: (_eventName, data, events) => {
          if (data === '4500') throw new Error('decoder bug');
          events.push(data);
        },
        pushEndEvents: (events) => events.push('end'),
      },
      lastRecord: 'drop',
    });
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const item of iterator) seen.push(item);
      })(),
    ).rejects.toThrow('decoder bug');
    expect(seen.length).toBeGreaterThan(0);
    expect(seen).toEqual(Array.from({ length: seen.length }, (_, index) => String(index)));
    expect(seen).not.toContain('4500');
  });

  it('is its own async iterator', () => {
    const iterator = decode(createBody([]).body);
    expect(iterator[Symbol.asyncIterator]()).toBe(iterator);
  });
});
