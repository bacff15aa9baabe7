import { describe, expect, it } from 'vitest';
import { collectEvents, streamOfChunks } from '@turnguard/testkit';
import { decodeMessagesStream } from './messages-stream-decoder.js';

/**
 * R7.2: a bare CR is a legal SSE line ending. A complete Messages
 * stream framed with CR (or CRLF) decodes exactly as with LF — its last
 * record, `message_stop`, included — whole and split at every byte.
 */
const RECORDS: Array<[string, object]> = [
  ['message_start', { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-x', content: [], stop_reason: null, usage: { input_tokens: 9, output_tokens: 1 } } }],
  ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
  ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello there.' } }],
  ['content_block_stop', { type: 'content_block_stop', index: 0 }],
  ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 4 } }],
  ['message_stop', { type: 'message_stop' }],
];
const LF_STREAM = RECORDS.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join('');

describe('Messages stream with CR / CRLF line endings (R7.2)', () => {
  it('decodes as LF does, with the terminal frame, whole and split at every byte', async () => {
    const expected = await collectEvents(decodeMessagesStream(streamOfChunks([LF_STREAM])));
    expect(expected.at(-1)).toEqual({ type: 'stream-end', terminalFrameSeen: true });
    for (const ending of ['\r', '\r\n']) {
      const bytes = new TextEncoder().encode(LF_STREAM.replaceAll('\n', ending));
      expect(await collectEvents(decodeMessagesStream(streamOfChunks([bytes]))), JSON.stringify(ending)).toEqual(expected);
      for (let cut = 1; cut < bytes.length; cut += 1) {
        const events = await collectEvents(decodeMessagesStream(streamOfChunks([bytes.subarray(0, cut), bytes.subarray(cut)])));
        expect(events, `${JSON.stringify(ending)} split at ${cut}`).toEqual(expected);
      }
    }
  });
});
