import fc from 'fast-check';
import { countJsonParses } from '@turnguard/testkit';
import { describe, expect, it } from 'vitest';
import { MessagesStreamDecoder } from './messages-stream-decoder.js';

const literal = fc.oneof(
  fc.string({ unit: 'binary' }).map((text) => JSON.stringify(text)),
  fc.string({ unit: fc.constantFrom('a', '"', '\\', 'u', '0', '\n', '\u0001', 'é', '\ud83d', '/') }).map((raw) => `"${raw}"`),
);
const start = [
  ['message_start', '{"type":"message_start","message":{"id":"msg_1","model":"m","usage":{"input_tokens":1,"output_tokens":1}}}'],
  ['content_block_start', '{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}'],
  ['content_block_start', '{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}'],
  ['content_block_delta', '{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hi"}}'],
] as const;
const textDelta = (text: string) => ['content_block_delta', `{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":${JSON.stringify(text)}}}`] as const;
/** More learnable records than the decoder parses fully before it learns (decision 0320). */
const warmUp = Array.from({ length: 5 }, (_, index) => textDelta(`w${index}`));
const record = fc.oneof(
  literal.map((value) => ['content_block_delta', `{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":${value}}}`] as const),
  literal.map((value) => ['content_block_delta', `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":${value}}}`] as const),
  literal.map((value) => ['error', `{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":${value}}}`] as const),
  literal.map((value) => ['content_block_delta', `{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":${value},"text":"dup"}}`] as const),
  fc.constant(['content_block_stop', '{"type":"content_block_stop","index":1}'] as const),
  fc.constant(['message_stop', '{"type":"message_stop"}'] as const),
);

function decodeAll(records: ReadonlyArray<readonly [string, string]>, learnRecordShapes: boolean) {
  const decoder = new MessagesStreamDecoder({ learnRecordShapes });
  const events: unknown[] = [];
  for (const [eventName, data] of records) decoder.pushRecordEvents(eventName, data, events as never[]);
  events.push(decoder.end());
  return events;
}

describe('Messages delta fast path (decision 0320, R7.2)', () => {
  it('decodes a learned text delta shape to the same events as a full parse', () => {
    const records = [...start, ['content_block_delta', '{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":" there"}}'] as const];
    expect(decodeAll(records, true)).toEqual(decodeAll(records, false));
    expect(decodeAll(records, true)).toContainEqual({ type: 'text-delta', id: '1', delta: ' there' });
  });

  it('parses a stream’s first four candidate deltas fully, learns from the fifth, then skips JSON.parse for its shape (decision 0320)', () => {
    const decoder = new MessagesStreamDecoder();
    const events: never[] = [];
    const feed = (records: ReadonlyArray<readonly [string, string]>) => () => records.forEach(([eventName, data]) => decoder.pushRecordEvents(eventName, data, events));
    feed(start.slice(0, 3))();
    // One parse each and nothing else: no template learned on a stream's first read (the gateway's TTFB path).
    expect(countJsonParses(feed(warmUp.slice(0, 4)))).toBe(4);
    feed(warmUp.slice(4))();
    expect(countJsonParses(feed(['x', 'y', 'z'].map(textDelta)))).toBe(0);
    expect(events.filter((event: { type: string }) => event.type === 'text-delta')).toHaveLength(8);
  });

  it('property: events equal the full-parse decoder for any literal, event name, duplicate key, closed block or stop', () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 30 }), (records) => {
        const stream = [...start, ...warmUp, ...records];
        expect(decodeAll(stream, true)).toEqual(decodeAll(stream, false));
      }),
      { numRuns: 500 },
    );
  });
});
