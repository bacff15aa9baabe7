import { describe, expect, it } from 'vitest';
import { heldShapes, runTurn, type DecodedStreamEvent } from '@turnguard/core';
import { collectEvents, haveSameHiddenClass, runFullGcs, streamOfText } from '@turnguard/testkit';
import { decodeMessagesStream } from './messages-stream-decoder.js';
import { messagesAdapter } from './messages-adapter.js';

// Issue 19, decision 0282: every event the per-record path emits must share
// the hidden class of a held sample, or the optimised code reading it is
// thrown away after the full GCs between turns. Fails when a decoder's
// literal changes key order or a sample drifts from it.
const sse = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
const delta = (index: number, body: object) => sse('content_block_delta', { type: 'content_block_delta', index, delta: body });
const wire =
  sse('message_start', { type: 'message_start', message: { id: 'msg_1', model: 'claude-x', usage: { input_tokens: 3, output_tokens: 1 } } }) +
  sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }) +
  delta(0, { type: 'thinking_delta', thinking: 'a' }) +
  delta(0, { type: 'thinking_delta', thinking: 'b' }) +
  delta(0, { type: 'thinking_delta', thinking: 'c' }) +
  delta(0, { type: 'signature_delta', signature: 'SIG' }) +
  sse('content_block_stop', { type: 'content_block_stop', index: 0 }) +
  sse('content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } }) +
  delta(1, { type: 'text_delta', text: 'x' }) +
  delta(1, { type: 'text_delta', text: 'y' }) +
  delta(1, { type: 'text_delta', text: 'z' }) +
  sse('content_block_stop', { type: 'content_block_stop', index: 1 }) +
  sse('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 5 } }) +
  sse('message_stop', { type: 'message_stop' });

const isHeld = (value: object) => heldShapes().some((sample) => haveSameHiddenClass(value, sample));

describe('Messages events keep their hidden classes across full GCs (issue 19, decision 0282)', () => {
  it('gives every event of a stream, learned deltas included, the hidden class of a held sample', async () => {
    runFullGcs();
    const events = await collectEvents(decodeMessagesStream(streamOfText(wire)));
    const types = events.map((event) => event.type);
    expect(types).toContain('text-delta');
    expect(types).toContain('reasoning-end');
    expect(events.filter((event) => !isHeld(event)).map((event) => event.type)).toEqual([]);
  });

  it('is a check that can fail: an event with another key order has no held sample', () => {
    expect(isHeld({ type: 'text-delta', delta: 'x', id: '1' } as DecodedStreamEvent)).toBe(false);
  });
});
