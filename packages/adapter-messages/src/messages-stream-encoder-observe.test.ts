import { TurnError } from '@turnguard/core';
import { describe, expect, it } from 'vitest';
import { checkEncoderObserve } from '@turnguard/testkit';
import { decodeMessagesStream } from './messages-stream-decoder.js';
import { MessagesStreamEncoder } from './messages-stream-encoder.js';

// The gateway relays upstream bytes and only observes events, then may continue with the encoder
// at a splice point (decision 0340): observe(e) must leave the encoder exactly where encode(e) would.
describe('MessagesStreamEncoder.observe (gateway splice)', () => {
  it('observing any prefix of a recorded stream, then encoding the rest, gives the same records as encoding it all', async () => {
    const check = await checkEncoderObserve('messages', decodeMessagesStream, () => {
      const encoder = new MessagesStreamEncoder();
      return { observe: (event) => encoder.observe(event), encode: (event) => encoder.encodeEvent(event) };
    });
    expect(check.mismatches).toEqual([]);
    expect(check.checked).toBeGreaterThan(20);
  });

  it('observeMessageStart: a message_start relayed from elsewhere is never sent a second time (R8.7)', () => {
    const encoder = new MessagesStreamEncoder();
    encoder.observeMessageStart({ type: 'response-metadata', responseId: 'msg_1', model: 'm' });
    const text = encoder.encodeEvent({ type: 'error', error: new TurnError({ kind: 'stream_cut', message: 'cut' }) }) + encoder.encodeEvent({ type: 'finish', finishReason: { unified: 'stop', raw: 'end_turn' } });
    expect(text).not.toContain('message_start');
    const finished = new MessagesStreamEncoder();
    finished.observeMessageStart({ type: 'response-metadata', responseId: 'msg_1', model: 'm' });
    expect(finished.encodeEvent({ type: 'finish', finishReason: { unified: 'stop', raw: 'end_turn' } })).toMatch(/^event: message_delta\n[\s\S]*event: message_stop\n/);
  });
});
