import { describe, expect, it } from 'vitest';
import { checkEncoderObserve } from '@turnguard/testkit';
import { decodeResponsesStream } from './responses-stream-decoder.js';
import { ResponsesStreamEncoder } from './responses-stream-encoder.js';

// The gateway relays upstream bytes and only observes events, then may continue with the encoder
// at a splice point (decision 0340): observe(e) must leave the encoder exactly where encode(e) would.
describe('ResponsesStreamEncoder.observe (gateway splice)', () => {
  it('observing any prefix of a recorded stream, then encoding the rest, gives the same records as encoding it all', async () => {
    const check = await checkEncoderObserve('responses', decodeResponsesStream, () => {
      const encoder = new ResponsesStreamEncoder();
      return { observe: (event) => encoder.observe(event), encode: (event) => encoder.encodeEvent(event) };
    });
    expect(check.mismatches).toEqual([]);
    expect(check.checked).toBeGreaterThan(20);
  });
});
