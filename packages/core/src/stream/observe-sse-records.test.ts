import { describe, expect, it } from 'vitest';
import { decodeSseStream, type LastRecordRule, type ObservedSseRecord } from './decode-sse-stream.js';

/**
 * R8.13: an observer of a body's records sees exactly the records the
 * decoder decoded — each once, in order, with its raw text and its events —
 * for LF, CR and CRLF, split at any byte, and never the bytes after the last
 * whole record.
 */
const BODY =
  'event: message_start\ndata: {"type":"message_start"}\n\n' +
  ': keep-alive\n\n' +
  'data: {"text":"é€"}\nid: 4\n\n' +
  'data: line 1\ndata: line 2\n\n' +
  'data: last';

const FRAMINGS: Record<string, (lf: string) => string> = {
  LF: (lf) => lf,
  CR: (lf) => lf.replaceAll('\n', '\r'),
  CRLF: (lf) => lf.replaceAll('\n', '\r\n'),
};

function bodyOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

async function decodeObserving(chunks: Uint8Array[], lastRecord: LastRecordRule) {
  const observed: Array<ObservedSseRecord<string>> = [];
  const decoded: string[] = [];
  const iterator = decodeSseStream<string>(bodyOf(chunks), {
    decoder: {
      pushRecordEvents: (eventName, data, events) => events.push(`${eventName ?? '-'}|${data}`),
      pushEndEvents: (events) => events.push('<end>'),
    },
    lastRecord,
    records: { onRecord: (record) => observed.push(record) },
  });
  for await (const item of iterator) decoded.push(item);
  return { observed, decoded };
}

describe('an SSE record observer sees the records the decoder decoded (R8.13)', () => {
  for (const [framing, frame] of Object.entries(FRAMINGS)) {
    for (const rule of ['drop', 'complete-lines', 'always'] as const) {
      it(`${framing}, last record ${rule}: split at every byte, the same records with their raw text`, async () => {
        const text = frame(BODY);
        const bytes = new TextEncoder().encode(text);
        const whole = await decodeObserving([bytes], rule);
        expect(whole.observed.flatMap((record) => record.events)).toEqual(whole.decoded.filter((item) => item !== '<end>'));
        for (const record of whole.observed) expect(text.includes(record.raw.replace(/\n\n$/, '')) || record.atEndOfBody).toBe(true);
        for (let cut = 1; cut < bytes.length; cut += 1) {
          const split = await decodeObserving([bytes.subarray(0, cut), bytes.subarray(cut)], rule);
          expect(split.observed, `cut at ${cut}`).toEqual(whole.observed);
          expect(split.decoded).toEqual(whole.decoded);
        }
      });
    }
  }

  it('raw texts are the records as they came; the last record is whole only by the rule that kept it', async () => {
    const { observed } = await decodeObserving([new TextEncoder().encode(FRAMINGS.CRLF!(BODY))], 'always');
    expect(observed.map((record) => record.raw)).toEqual([
      'event: message_start\r\ndata: {"type":"message_start"}\r\n\r\n',
      'data: {"text":"é€"}\r\nid: 4\r\n\r\n',
      'data: line 1\r\ndata: line 2\r\n\r\n',
      'data: last\n\n',
    ]);
    expect(observed.map((record) => record.atEndOfBody)).toEqual([false, false, false, true]);
    expect(observed[2]!.data).toBe('line 1\nline 2');
  });

  it('a CR-framed record whose blank line is the last byte of the body is not lost', async () => {
    const { observed } = await decodeObserving([new TextEncoder().encode('data: A\r\rdata: B\r\r')], 'drop');
    expect(observed.map((record) => [record.data, record.atEndOfBody])).toEqual([
      ['A', false],
      ['B', true],
    ]);
  });

  it('bytes after the last whole record at a cut are never reported (drop)', async () => {
    const { observed } = await decodeObserving([new TextEncoder().encode('data: A\n\ndata: [DO')], 'drop');
    expect(observed.map((record) => record.data)).toEqual(['A']);
  });
});
