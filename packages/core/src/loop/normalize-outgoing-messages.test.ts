import { describe, expect, it } from 'vitest';
import { findOrphanToolResults, findUnpairedToolCalls } from '../errors/pairing-diagnostic.js';
import { toAssistantErrorMessage } from '../errors/to-assistant-error-message.js';
import { TurnError } from '../errors/turn-error.js';
import type { Message } from '../types/message.js';
import { MISSING_TOOL_RESULT, STRIPPED_IMAGE_TEXT } from './loop-messages.js';
import { normalizeOutgoingMessages } from './normalize-outgoing-messages.js';
import { stripImages, stripModelBoundReasoning } from './strip-messages.js';

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
const call = (id: string): Message => ({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: 'read', input: '{}' }] });
const result = (...ids: string[]): Message => ({ role: 'tool', content: ids.map((id) => ({ type: 'tool-result', toolCallId: id, output: `r-${id}` })) });

describe('normalizeOutgoingMessages (R3.7)', () => {
  it('synthesises a missing tool result right after its assistant message', () => {
    const out = normalizeOutgoingMessages([user('go'), call('a'), user('next')]);
    expect(out).toEqual([
      user('go'),
      call('a'),
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'a', toolName: 'read', output: MISSING_TOOL_RESULT, isError: true }] },
      user('next'),
    ]);
  });

  it('drops orphan and duplicate results, and moves a late result next to its call', () => {
    const out = normalizeOutgoingMessages([user('go'), result('ghost'), call('a'), user('meanwhile'), result('a', 'a')]);
    expect(out.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(out[2]!.content).toEqual([{ type: 'tool-result', toolCallId: 'a', output: 'r-a' }]);
    expect([findUnpairedToolCalls(out), findOrphanToolResults(out)]).toEqual([[], []]);
  });

  it('pairs each result with its own call when a server reuses a tool-call id across turns', () => {
    const resultOf = (id: string, output: string): Message => ({ role: 'tool', content: [{ type: 'tool-result', toolCallId: id, output }] });
    const out = normalizeOutgoingMessages([user('go'), call('call_0'), resultOf('call_0', 'A'), call('call_0'), resultOf('call_0', 'B')]);
    expect(out.filter((message) => message.role === 'tool').map((message) => message.content.map((part) => (part as { output: string }).output))).toEqual([['A'], ['B']]);
  });

  it('keeps an already paired tool message as the same object', () => {
    const tool = result('a');
    const out = normalizeOutgoingMessages([user('go'), call('a'), tool]);
    expect(out[2]).toBe(tool);
  });

  it('strips API error pseudo messages and fully empty assistant turns, keeps reasoning-only turns (R2.2, R3.5)', () => {
    const reasoningOnly: Message = { role: 'assistant', content: [{ type: 'reasoning', text: 'hmm' }] };
    const out = normalizeOutgoingMessages([
      user('go'),
      toAssistantErrorMessage(new TurnError({ kind: 'server', message: 'x' })),
      { role: 'assistant', content: [{ type: 'text', text: '' }] },
      reasoningOnly,
    ]);
    expect(out).toEqual([user('go'), reasoningOnly]);
  });
});

describe('stripModelBoundReasoning (R3.9) and stripImages (R3.6)', () => {
  it('removes signed, redacted and encrypted reasoning, keeps plain reasoning text', () => {
    const messages: Message[] = [
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'a', signature: 's' },
          { type: 'reasoning', text: '', redacted: true, encrypted: 'x' },
          { type: 'reasoning', text: 'plain' },
          { type: 'text', text: 'hi' },
        ],
      },
    ];
    expect(stripModelBoundReasoning(messages)[0]!.content).toEqual([{ type: 'reasoning', text: 'plain' }, { type: 'text', text: 'hi' }]);
  });

  it('replaces images in user messages and tool results', () => {
    const image = { type: 'image' as const, source: { kind: 'url' as const, url: 'https://x.test/a.png' } };
    const out = stripImages([
      { role: 'user', content: [image] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'a', output: [image, { type: 'text', text: 'cap' }] }] },
    ]);
    expect(JSON.stringify(out)).not.toContain('a.png');
    expect(out[0]!.content).toEqual([{ type: 'text', text: STRIPPED_IMAGE_TEXT }]);
  });
});
