import { describe, expect, it } from 'vitest';
import type { TurnEvent } from '@turnguard/core';
import { collectEvents, frameRecordedLines, readRecordedStreams, streamOfText } from '@turnguard/testkit';
import { decodeResponsesStream } from './responses-stream-decoder.js';
import { ResponsesStreamEncoder } from './responses-stream-encoder.js';

// The gateway relays upstream bytes and only observes events, then may continue with the encoder
// at a splice point (issue 7): observe(e) must leave the encoder exactly where encode(e) would.
describe('ResponsesStreamEncoder.observe (gateway splice)', () => {
  it('observing any prefix of a recorded stream, then encoding the rest, gives the same records as encoding it all', async () => {
    let checked = 0;
    for (const recording of readRecordedStreams('responses')) {
      const decoded = await collectEvents(decodeResponsesStream(streamOfText(frameRecordedLines('responses', recording.lines))));
      const events = decoded.filter((event): event is TurnEvent => event.type !== 'stream-end');
      const reference = new ResponsesStreamEncoder();
      const expected = events.map((event) => reference.encodeEvent(event));
      for (let split = 0; split <= events.length; split += Math.max(1, Math.floor(events.length / 7))) {
        const spliced = new ResponsesStreamEncoder();
        for (const event of events.slice(0, split)) spliced.observe(event);
        expect(events.slice(split).map((event) => spliced.encodeEvent(event)), `${recording.name} @${split}`).toEqual(expected.slice(split));
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(20);
  });
});
