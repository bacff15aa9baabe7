import { describe, expect, it } from 'vitest';
import { heldShapes } from '@turnguard/core';
import { collectEvents, haveSameHiddenClass, runFullGcs, streamOfText } from '@turnguard/testkit';
import { decodeChatStream } from './chat-stream-decoder.js';

// Issue 19, decision 0282: the Chat decoder's events, learned deltas
// included, share the hidden class of a held sample after full GCs.
const chunk = (delta: object, extra: object = {}) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-x', choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`;
const wire =
  chunk({ role: 'assistant', content: '' }) +
  ['a', 'b', 'c', 'd'].map((text) => chunk({ content: text })).join('') +
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-x', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n` +
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-x', choices: [], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } })}\n\n` +
  'data: [DONE]\n\n';

const isHeld = (value: object) => heldShapes().some((sample) => haveSameHiddenClass(value, sample));

describe('Chat events keep their hidden classes across full GCs (issue 19, decision 0282)', () => {
  it('gives every event of a stream the hidden class of a held sample', async () => {
    runFullGcs();
    const events = await collectEvents(decodeChatStream(streamOfText(wire)));
    expect(events.map((event) => event.type)).toEqual(expect.arrayContaining(['response-metadata', 'text-delta', 'usage', 'finish', 'stream-end']));
    expect(events.filter((event) => !isHeld(event)).map((event) => event.type)).toEqual([]);
  });
});
