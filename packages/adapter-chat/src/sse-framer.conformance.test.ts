import { SseFramer } from '@turnguard/core';
import { createParser } from 'eventsource-parser';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

/**
 * Core's SseFramer replaced eventsource-parser in the three decoders
 * (decision 0320), and the framing must stay the same (R7.2). Here (adapter-chat
 * depends on eventsource-parser, core does not) both frame the same random
 * text, split at random, and must hand over the same records at the same feed.
 */
const piece = fc.constantFrom(
  'data:',
  'data: ',
  'data',
  'event:',
  'event: ',
  'event',
  'id: 7',
  'retry: 5',
  ':comment',
  ': ping',
  'foo: bar',
  'x',
  ' ',
  '{"a":"b"}',
  'é',
  '\n',
  '\n',
  '\n\n',
  '\r',
  '\r\n',
  '\u00ef\u00bb\u00bf',
  '\ufeff',
);

function frameWithOurs(chunks: string[]): string[][] {
  const batches: string[][] = [];
  let batch: string[] = [];
  const framer = new SseFramer({ pushRecord: (eventName, data) => batch.push(`${eventName ?? '<none>'}|${data}`) });
  for (const chunk of chunks) {
    framer.feed(chunk);
    batches.push(batch);
    batch = [];
  }
  return batches;
}

function frameWithEventsourceParser(chunks: string[]): string[][] {
  const batches: string[][] = [];
  let batch: string[] = [];
  const parser = createParser({ onEvent: (record) => batch.push(`${record.event ?? '<none>'}|${record.data}`) });
  for (const chunk of chunks) {
    parser.feed(chunk);
    batches.push(batch);
    batch = [];
  }
  return batches;
}

/** `text` cut at the given offsets, then the end-of-body flushes the decoders use. */
function splitText(text: string, cuts: number[]): string[] {
  const offsets = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
  const chunks: string[] = [];
  let from = 0;
  for (const offset of offsets) {
    chunks.push(text.slice(from, offset));
    from = offset;
  }
  chunks.push(text.slice(from), '\n', '\n\n');
  return chunks;
}

describe('SseFramer frames exactly as eventsource-parser (decision 0320, R7.2)', () => {
  it('frames the usual provider records and multi-line data', () => {
    const chunks = ['event: message_start\ndata: {"a":1}\n\n', 'data: line 1\ndata: line 2\n\n: keep-alive\n\nevent: ping\r\ndata: {}\r\n\r\n', 'data: [DONE]\n\n'];
    expect(frameWithOurs(chunks)).toEqual(frameWithEventsourceParser(chunks));
    expect(frameWithOurs(chunks).flat()).toEqual(['message_start|{"a":1}', '<none>|line 1\nline 2', 'ping|{}', '<none>|[DONE]']);
  });

  it('property: the same records, never in a later feed, for random lines, line endings and splits', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), fc.array(fc.nat(), { maxLength: 12 }), (pieces, cuts) => {
        const chunks = splitText(pieces.join(''), cuts);
        const ours = frameWithOurs(chunks);
        const theirs = frameWithEventsourceParser(chunks);
        expect(ours.flat()).toEqual(theirs.flat());
        // eventsource-parser leaves a CR held at a chunk's end unread while the next chunks have no
        // line end; ours ends that line at once, so a record may come one feed earlier, never later.
        let oursSoFar = 0;
        let theirsSoFar = 0;
        for (let feed = 0; feed < chunks.length; feed += 1) {
          oursSoFar += ours[feed]!.length;
          theirsSoFar += theirs[feed]!.length;
          expect(oursSoFar).toBeGreaterThanOrEqual(theirsSoFar);
        }
      }),
      { numRuns: 3000 },
    );
  });
});

/** Records with the raw text the framer kept for each (R8.13: the gateway relays exactly these). */
function frameKeepingRaw(chunks: string[]): Array<{ record: string; raw: string }> {
  const framed: Array<{ record: string; raw: string }> = [];
  const framer = new SseFramer({ pushRecord: (eventName, data, raw) => framed.push({ record: `${eventName ?? '<none>'}|${data}`, raw: raw ?? '<no raw>' }) }, { keepRaw: true });
  for (const chunk of chunks) framer.feed(chunk);
  framer.end();
  return framed;
}

describe('SseFramer keeps each record whole, as it came (R8.13)', () => {
  it('the raw text of a record is its lines up to the blank line, whatever the line ends', () => {
    const chunks = ['event: a\r', '\ndata: 1\r\n\r\n: ping\n\nid: 3\rdata: x\r', '\r', 'data: y\n', '\n'];
    expect(frameKeepingRaw(chunks)).toEqual([
      { record: 'a|1', raw: 'event: a\r\ndata: 1\r\n\r\n' },
      { record: '<none>|x', raw: 'id: 3\rdata: x\r\r' },
      { record: '<none>|y', raw: 'data: y\n\n' },
    ]);
  });

  it('property: each raw text, framed on its own by either parser, is exactly its record; together they are the records', () => {
    // Without the Latin-1 BOM piece: a stream's first three characters are dropped only at its start,
    // so a raw text beginning with them frames differently on its own (the first property covers the BOM).
    const pieceAfterStart = piece.filter((text) => text !== '\u00ef\u00bb\u00bf');
    fc.assert(
      fc.property(fc.array(pieceAfterStart, { maxLength: 60 }), fc.array(fc.nat(), { maxLength: 12 }), (pieces, cuts) => {
        const chunks = splitText(pieces.join(''), cuts);
        const framed = frameKeepingRaw(chunks);
        expect(framed.map((item) => item.record)).toEqual(frameWithEventsourceParser(chunks).flat());
        // A raw text may end in a bare CR, which a streaming parser settles at the next byte or the end.
        for (const { record, raw } of framed) expect(frameKeepingRaw([raw]).map((item) => item.record)).toEqual([record]);
        const relayed = `${framed.map((item) => item.raw).join('')}\n`;
        expect(frameWithEventsourceParser([relayed]).flat()).toEqual(framed.map((item) => item.record));
      }),
      { numRuns: 3000 },
    );
  });
});
