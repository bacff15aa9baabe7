import { describe, expect, it } from 'vitest';
import type { TurnEvent } from '@turnguard/core';
import { ResponsesStreamEventMapper } from './map-responses-stream-event.js';

const ITEM = 'msg_1';

function mapAll(mapper: ResponsesStreamEventMapper, records: object[]): TurnEvent[] {
  return records.flatMap((record) => mapper.mapRecord(JSON.stringify(record)) as TurnEvent[]);
}

function textDeltas(events: TurnEvent[]): string {
  return events.map((event) => (event.type === 'text-delta' ? event.delta : '')).join('');
}

const delta = (text: string) => ({ type: 'response.output_text.delta', item_id: ITEM, content_index: 0, delta: text });
const done = (text: string) => ({ type: 'response.output_text.done', item_id: ITEM, content_index: 0, text });

describe('R7.2 Responses text `.done` against what was streamed (bounded memory: only length + tail are kept)', () => {
  it('emits the part of the `.done` text the deltas skipped, after a text longer than the kept tail', () => {
    const streamed = 'word '.repeat(100);
    const events = mapAll(new ResponsesStreamEventMapper(), [delta(streamed.slice(0, 250)), delta(streamed.slice(250)), done(`${streamed}end.`)]);
    expect(textDeltas(events)).toBe(`${streamed}end.`);
  });

  it('emits nothing more when the `.done` text equals the deltas', () => {
    const events = mapAll(new ResponsesStreamEventMapper(), [delta('Hello'), delta(' world'), done('Hello world')]);
    expect(textDeltas(events)).toBe('Hello world');
  });

  it('emits nothing from a `.done` text that does not extend what was streamed', () => {
    const streamed = 'x'.repeat(200);
    const disagreeing = `${'x'.repeat(150)}Y${'x'.repeat(49)} and more`;
    const shorter = 'x'.repeat(100);
    for (const fullText of [disagreeing, shorter]) {
      const events = mapAll(new ResponsesStreamEventMapper(), [delta(streamed), done(fullText)]);
      expect(textDeltas(events)).toBe(streamed);
    }
  });

  it('a `.done` for a block that streamed no delta starts the block and emits the whole text', () => {
    const events = mapAll(new ResponsesStreamEventMapper(), [done('All at once.')]);
    expect(events).toEqual([
      { type: 'text-start', id: ITEM },
      { type: 'text-delta', id: ITEM, delta: 'All at once.' },
    ]);
  });
});
