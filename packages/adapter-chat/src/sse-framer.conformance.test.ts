import { SseFramer } from '@turnguard/core';
import { createParser } from 'eventsource-parser';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

/**
 * Core's SseFramer replaced eventsource-parser in the three decoders
 * (decision 0202); issue 3 asks that the framing stay the same. Here (adapter-chat
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

describe('SseFramer frames exactly as eventsource-parser (decision 0202, R7.2)', () => {
  it('frames the usual provider records and multi-line data', () => {
    const chunks = ['event: message_start\ndata: {"a":1}\n\n', 'data: line 1\ndata: line 2\n\n: keep-alive\n\nevent: ping\r\ndata: {}\r\n\r\n', 'data: [DONE]\n\n'];
    expect(frameWithOurs(chunks)).toEqual(frameWithEventsourceParser(chunks));
    expect(frameWithOurs(chunks).flat()).toEqual(['message_start|{"a":1}', '<none>|line 1\nline 2', 'ping|{}', '<none>|[DONE]']);
  });

  it('property: the same records, in the same feed, for random lines, line endings and splits', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), fc.array(fc.nat(), { maxLength: 12 }), (pieces, cuts) => {
        const chunks = splitText(pieces.join(''), cuts);
        expect(frameWithOurs(chunks)).toEqual(frameWithEventsourceParser(chunks));
      }),
      { numRuns: 3000 },
    );
  });
});
