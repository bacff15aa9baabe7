import { describe, expect, it } from 'vitest';
import type { TurnEvent } from '@turnguard/core';
import { ChatToolCallAssembler } from './chat-tool-call-assembler.js';

function feed(fragments: unknown[]): { events: TurnEvent[]; ends: TurnEvent[] } {
  const assembler = new ChatToolCallAssembler();
  const events = fragments.flatMap((fragment) => assembler.addFragment(fragment));
  return { events, ends: assembler.endCalls() };
}

describe('ChatToolCallAssembler (R7.2)', () => {
  it('joins parallel calls by index', () => {
    const { events, ends } = feed([
      { index: 0, id: 'a', type: 'function', function: { name: 'f', arguments: '' } },
      { index: 1, id: 'b', type: 'function', function: { name: 'g', arguments: '{' } },
      { index: 0, function: { arguments: '{"x":1}' } },
      { index: 1, function: { arguments: '}' } },
    ]);
    expect(events.map((event) => event.type)).toEqual(['tool-call-start', 'tool-call-start', 'tool-call-delta', 'tool-call-delta', 'tool-call-delta']);
    expect(ends).toEqual([
      { type: 'tool-call-end', toolCallId: 'a', toolName: 'f', input: '{"x":1}' },
      { type: 'tool-call-end', toolCallId: 'b', toolName: 'g', input: '{}' },
    ]);
  });

  it('an empty id on later fragments is no id (alibaba-tool-call.chunks.txt)', () => {
    const { ends } = feed([
      { index: 0, id: 'call_1', type: 'function', function: { name: 'weather', arguments: '' } },
      { index: 0, id: '', type: 'function', function: { arguments: '{"l":' } },
      { index: 0, id: '', type: 'function', function: { arguments: '1}' } },
    ]);
    expect(ends).toEqual([{ type: 'tool-call-end', toolCallId: 'call_1', toolName: 'weather', input: '{"l":1}' }]);
  });

  it('falls back to id when index is missing (mistral-tool-call.chunks.txt, codex chat.rs)', () => {
    const { ends } = feed([
      { id: 'x', function: { name: 'a', arguments: '{"p":' } },
      { id: 'y', function: { name: 'b', arguments: '{}' } },
      { id: 'x', function: { arguments: '2}' } },
    ]);
    expect(ends.map((event) => event.type === 'tool-call-end' && [event.toolCallId, event.input])).toEqual([
      ['x', '{"p":2}'],
      ['y', '{}'],
    ]);
  });

  it('a new id at a used index starts a new call', () => {
    const { ends } = feed([
      { index: 0, id: 'one', function: { name: 'a', arguments: '{}' } },
      { index: 0, id: 'two', function: { name: 'b', arguments: '{}' } },
    ]);
    expect(ends.map((event) => event.type === 'tool-call-end' && event.toolCallId)).toEqual(['one', 'two']);
  });

  it('waits for the name before starting and replays buffered arguments; a nameless call never ends', () => {
    const assembler = new ChatToolCallAssembler();
    expect(assembler.addFragment({ index: 0, id: 'c', function: { arguments: '{"a"' } })).toEqual([]);
    expect(assembler.hasCalls).toBe(true);
    expect(assembler.addFragment({ index: 0, function: { name: 'late', arguments: ':1}' } })).toEqual([
      { type: 'tool-call-start', toolCallId: 'c', toolName: 'late' },
      { type: 'tool-call-delta', toolCallId: 'c', delta: '{"a":1}' },
    ]);
    const nameless = new ChatToolCallAssembler();
    nameless.addFragment({ index: 0, function: { arguments: '{}' } });
    expect(nameless.endCalls()).toEqual([]);
  });

  it('a call whose id never came ends with a stable generated id', () => {
    expect(feed([{ index: 0, function: { name: 'f', arguments: '{}' } }]).ends).toEqual([
      { type: 'tool-call-start', toolCallId: 'call_turnguard_0', toolName: 'f' },
      { type: 'tool-call-delta', toolCallId: 'call_turnguard_0', delta: '{}' },
      { type: 'tool-call-end', toolCallId: 'call_turnguard_0', toolName: 'f', input: '{}' },
    ]);
  });
});
