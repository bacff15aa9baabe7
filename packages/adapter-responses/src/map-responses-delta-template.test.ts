import fc from 'fast-check';
import { countJsonParses } from '@turnguard/testkit';
import { describe, expect, it } from 'vitest';
import { ResponsesStreamEventMapper } from './map-responses-stream-event.js';

const literal = fc.oneof(
  fc.string({ unit: 'binary' }).map((text) => JSON.stringify(text)),
  fc.string({ unit: fc.constantFrom('a', '"', '\\', 'u', '0', '\n', '\u0001', 'é', '\ud83d', '/') }).map((raw) => `"${raw}"`),
);
const textDelta = (seq: number, value: string, contentIndex = 0) =>
  `{"type":"response.output_text.delta","sequence_number":${seq},"item_id":"msg_1","output_index":1,"content_index":${contentIndex},"delta":${value}}`;
/** More learnable records than the mapper parses fully before it learns (decision 0320). */
const warmUp = Array.from({ length: 5 }, (_, index) => textDelta(index, `"w${index}"`));
const record = fc.oneof(
  fc.tuple(fc.nat(), literal).map(([seq, value]) => textDelta(seq, value)),
  fc.tuple(fc.nat(), literal).map(([seq, value]) => textDelta(seq, value, 1)),
  fc.tuple(fc.nat(), literal).map(([seq, value]) => `{"type":"response.reasoning_summary_text.delta","sequence_number":${seq},"item_id":"rs_1","output_index":0,"summary_index":0,"delta":${value}}`),
  fc.tuple(fc.nat(), literal).map(([seq, value]) => `{"type":"response.output_text.delta","sequence_number":${seq},"item_id":"msg_1","output_index":1,"content_index":0,"delta":${value},"delta":"dup"}`),
  fc.constant('{"type":"response.content_part.done","item_id":"msg_1","content_index":0}'),
  fc.constant('{"type":"response.completed","response":{"status":"completed"}}'),
);

function decodeAll(records: string[], learnRecordShapes: boolean) {
  const mapper = new ResponsesStreamEventMapper({ learnRecordShapes });
  const events: unknown[] = [];
  for (const data of records) mapper.pushRecordEvents(data, events as never[]);
  events.push(mapper.end());
  return events;
}

describe('Responses delta fast path (decision 0320, R7.2)', () => {
  it('decodes a learned text delta shape, whatever its sequence_number, to the same events as a full parse', () => {
    const records = [textDelta(4, '"Hi"'), textDelta(5, '" there"'), textDelta(123456, '"!"')];
    expect(decodeAll(records, true)).toEqual(decodeAll(records, false));
    expect(decodeAll(records, true)).toContainEqual({ type: 'text-delta', id: 'msg_1', delta: '!' });
  });

  it('parses a stream’s first four candidate deltas fully, learns from the fifth, then skips JSON.parse for its shape (decision 0320)', () => {
    const mapper = new ResponsesStreamEventMapper();
    const events: never[] = [];
    const feed = (records: string[]) => () => records.forEach((data) => mapper.pushRecordEvents(data, events));
    // One parse each and nothing else: no template learned on a stream's first read (the gateway's TTFB path).
    expect(countJsonParses(feed(warmUp.slice(0, 4)))).toBe(4);
    feed(warmUp.slice(4))();
    expect(countJsonParses(feed(['"x"', '"y"', '"z"'].map((text, index) => textDelta(10 + index, text))))).toBe(0);
    expect(events.filter((event: { type: string }) => event.type === 'text-delta')).toHaveLength(8);
  });

  it('property: events equal the full-parse mapper for any literal, sequence number, id, duplicate key or terminal', () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 30 }), (records) => {
        const stream = [...warmUp, ...records];
        expect(decodeAll(stream, true)).toEqual(decodeAll(stream, false));
      }),
      { numRuns: 500 },
    );
  });
});
