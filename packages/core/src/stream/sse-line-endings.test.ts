import { describe, expect, it, vi } from 'vitest';
import { decodeSseStream, type LastRecordRule } from './decode-sse-stream.js';
import { SseFramer } from './sse-framer.js';

/**
 * R7.2: CR, LF and CRLF each end a line (WHATWG event-stream), at
 * any read boundary, and a line end held back at a chunk's edge is honoured at
 * the end of input. Hand-made streams in the shapes of the three protocols,
 * written with LF, re-framed with CR and CRLF, and split at every byte.
 */
const STREAMS: Record<string, string> = {
  messages:
    'event: message_start\ndata: {"type":"message_start"}\n\n' +
    'event: content_block_delta\ndata: {"type":"content_block_delta","delta":{"text":"é€"}}\n\n' +
    ': keep-alive comment\n\n' +
    'event: message_stop\ndata: {"type":"message_stop"}\n\n',
  chat: 'data: {"choices":[{"delta":{"content":"a"}}]}\n\ndata: {"choices":[{"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n',
  responsesMultiLine: 'event: response.output_text.delta\ndata: {"delta":\ndata: "x"}\nid: 7\n\nevent: response.completed\ndata: {}\n\n',
  // No blank line after the last record: each last-record rule decides.
  unterminated: 'data: first\n\ndata: last\n',
};

const FRAMINGS: Record<string, (lf: string) => string> = {
  LF: (lf) => lf,
  CR: (lf) => lf.replaceAll('\n', '\r'),
  CRLF: (lf) => lf.replaceAll('\n', '\r\n'),
};

const RULES: LastRecordRule[] = ['drop', 'complete-lines', 'always'];

function bodyOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

async function records(chunks: Uint8Array[], lastRecord: LastRecordRule): Promise<string[]> {
  const out: string[] = [];
  const iterator = decodeSseStream<string>(bodyOf(chunks), {
    decoder: {
      pushRecordEvents: (eventName, data, events) => events.push(`${eventName ?? '-'}|${data}`),
      pushEndEvents: (events) => events.push('<end>'),
    },
    lastRecord,
  });
  for await (const item of iterator) out.push(item);
  return out;
}

describe('SSE line endings at every read boundary (R7.2)', () => {
  for (const [streamName, lf] of Object.entries(STREAMS)) {
    for (const rule of RULES) {
      it(`${streamName} (${rule}): CR and CRLF framings, split at every byte, decode as LF does`, async () => {
        const expected = await records([new TextEncoder().encode(lf)], rule);
        for (const [framingName, frame] of Object.entries(FRAMINGS)) {
          const bytes = new TextEncoder().encode(frame(lf));
          expect(await records([bytes], rule), `${framingName} whole`).toEqual(expected);
          expect(await records(Array.from(bytes, (byte) => Uint8Array.of(byte)), rule), `${framingName} byte by byte`).toEqual(expected);
          for (let cut = 1; cut < bytes.length; cut += 1) {
            const split = [bytes.subarray(0, cut), bytes.subarray(cut)];
            expect(await records(split, rule), `${framingName} split at ${cut}`).toEqual(expected);
          }
        }
      });
    }
  }

  it('frames the last record of a bare-CR Messages stream at a clean end (the dropped message_stop)', async () => {
    const cr = FRAMINGS.CR!(STREAMS.messages!);
    expect(await records([new TextEncoder().encode(cr)], 'drop')).toEqual([
      'message_start|{"type":"message_start"}',
      'content_block_delta|{"type":"content_block_delta","delta":{"text":"é€"}}',
      'message_stop|{"type":"message_stop"}',
      '<end>',
    ]);
  });

  it('still drops, under "drop", a record the body ends without any line end', async () => {
    expect(await records([new TextEncoder().encode('data: a\r\rdata: b')], 'drop')).toEqual(['-|a', '<end>']);
    expect(await records([new TextEncoder().encode('data: a\r\rdata: b\r')], 'drop')).toEqual(['-|a', '<end>']);
  });
});

describe('one long line fed in many chunks (R8.2: linear in the record)', () => {
  it('no chunk reads back what is pending: the pending line is only appended to until its line end comes', () => {
    const records: string[] = [];
    const framer = new SseFramer({ pushRecord: (_event, data) => records.push(data) }, { keepRaw: true });
    const chunk = 'x'.repeat(1024);
    const endsWith = vi.spyOn(String.prototype, 'endsWith');
    const charCodeAt = vi.spyOn(String.prototype, 'charCodeAt');
    try {
      framer.feed('data: ');
      endsWith.mockClear();
      charCodeAt.mockClear();
      for (let index = 0; index < 200; index += 1) framer.feed(chunk);
      // A rope's last character read per chunk flattened it each time: quadratic in the line (a 32 MiB record took 16 s).
      expect(endsWith).not.toHaveBeenCalled();
      expect(charCodeAt).not.toHaveBeenCalled();
    } finally {
      endsWith.mockRestore();
      charCodeAt.mockRestore();
    }
    framer.feed('\r');
    framer.feed('\r');
    framer.end();
    expect(records).toEqual([chunk.repeat(200)]);
  });
});
