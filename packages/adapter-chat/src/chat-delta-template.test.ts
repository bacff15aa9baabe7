import fc from 'fast-check';
import { countJsonParses } from '@turnguard/testkit';
import { describe, expect, it } from 'vitest';
import { ChatChunkDecoder } from './chat-stream-decoder.js';

const head = '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1770000000,"model":"m","choices":[{"index":0,"delta":';
const tail = ',"logprobs":null,"finish_reason":null}],"usage":null}';
const literal = fc.oneof(
  fc.string({ unit: 'binary' }).map((text) => JSON.stringify(text)),
  fc.string({ unit: fc.constantFrom('a', '"', '\\', 'u', '0', '\n', '\u0001', 'é', '\ud83d', '/') }).map((raw) => `"${raw}"`),
);
/** Chunks a stream may hold: text or reasoning deltas with any literal, plus shapes that must not take the fast path. */
const chunk = fc.oneof(
  literal.map((value) => `${head}{"content":${value},"reasoning_content":null}${tail}`),
  literal.map((value) => `${head}{"content":null,"reasoning_content":${value}}${tail}`),
  literal.map((value) => `${head}{"content":${value},"content":"dup"}${tail}`),
  literal.map((value) => `${head}{"content":${value},"reasoning_content":null},"logprobs":null,"finish_reason":"stop"}],"usage":null}`),
  literal.map((value) => `${head}{"content":${value},"refusal":"no"}${tail}`),
);

const textChunk = (text: string) => `${head}{"content":${JSON.stringify(text)},"reasoning_content":null}${tail}`;
/** More learnable records than the decoder parses fully before it learns (decision 0320). */
const warmUp = Array.from({ length: 5 }, (_, index) => textChunk(`w${index}`));

function decodeAll(records: string[], learnRecordShapes: boolean) {
  const decoder = new ChatChunkDecoder({ learnRecordShapes });
  const events: unknown[] = [];
  for (const data of records) decoder.pushRecordEvents({ data }, false, events as never[]);
  decoder.pushEndEvents(events as never[]);
  return events;
}

describe('Chat delta fast path (decision 0320, R7.2)', () => {
  it('learns a text delta chunk and decodes the next ones without a full parse, to the same events', () => {
    const records = [`${head}{"content":"Hi","reasoning_content":null}${tail}`, `${head}{"content":" there","reasoning_content":null}${tail}`];
    expect(decodeAll(records, true)).toEqual(decodeAll(records, false));
    expect(decodeAll(records, true)).toContainEqual({ type: 'text-delta', id: 'text-0', delta: ' there' });
  });

  it('parses a stream’s first four candidate chunks fully, learns from the fifth, then skips JSON.parse for its shape (decision 0320)', () => {
    const decoder = new ChatChunkDecoder();
    const events: never[] = [];
    const feed = (records: string[]) => () => records.forEach((data) => decoder.pushRecordEvents({ data }, false, events));
    // One parse each and nothing else: no template learned on a stream's first read (the gateway's TTFB path).
    expect(countJsonParses(feed(warmUp.slice(0, 4)))).toBe(4);
    feed(warmUp.slice(4))();
    expect(countJsonParses(feed(['x', 'y', 'z'].map(textChunk)))).toBe(0);
    expect(events.filter((event: { type: string }) => event.type === 'text-delta')).toHaveLength(8);
  });

  it('property: events equal the full-parse decoder for any literal, escapes, control characters and shape changes', () => {
    fc.assert(
      fc.property(fc.array(chunk, { maxLength: 30 }), (records) => {
        const stream = [...warmUp, ...records];
        expect(decodeAll(stream, true)).toEqual(decodeAll(stream, false));
      }),
      { numRuns: 500 },
    );
  });
});
