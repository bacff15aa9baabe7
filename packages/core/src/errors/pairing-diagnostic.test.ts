import { describe, expect, it } from 'vitest';
import type { Message } from '../types/message.js';
import { describePairingAround, findOrphanToolResults, findUnpairedToolCalls } from './pairing-diagnostic.js';

const SECRET = 'my private notes';

const conversation: Message[] = [
  { role: 'system', content: [{ type: 'text', text: 'You are helpful.' }] },
  { role: 'user', content: [{ type: 'text', text: SECRET }] },
  {
    role: 'assistant',
    content: [
      { type: 'reasoning', text: SECRET },
      { type: 'tool-call', toolCallId: 'toolu_1', toolName: 'read', input: `{"q":"${SECRET}"}` },
      { type: 'tool-call', toolCallId: 'toolu_2', toolName: 'read', input: '{}' },
    ],
  },
  { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'toolu_1', output: SECRET }] },
  { role: 'user', content: [{ type: 'text', text: 'go on' }, { type: 'image', source: { kind: 'url', url: 'https://x/y.png' } }] },
  { role: 'assistant', content: [] },
  { role: 'assistant', content: [{ type: 'text', text: SECRET }] },
];

describe('describePairingAround (R2.3)', () => {
  it('lists role:type:id tokens of the messages around the tool call, without content', () => {
    expect(describePairingAround(conversation, 'toolu_2', 2)).toEqual([
      'system:text:-',
      'user:text:-',
      'assistant:reasoning:-',
      'assistant:tool-call:toolu_1',
      'assistant:tool-call:toolu_2',
      'tool:tool-result:toolu_1',
      'user:text:-',
      'user:image:-',
    ]);
    expect(JSON.stringify(describePairingAround(conversation, 'toolu_1', 10))).not.toContain('private');
  });

  it('defaults to a radius of 3 messages and marks empty messages', () => {
    // Anchor is message 2, so messages 0..5: the last assistant message (6) is outside.
    expect(describePairingAround(conversation, 'toolu_1')).toEqual([
      'system:text:-',
      'user:text:-',
      'assistant:reasoning:-',
      'assistant:tool-call:toolu_1',
      'assistant:tool-call:toolu_2',
      'tool:tool-result:toolu_1',
      'user:text:-',
      'user:image:-',
      'assistant:empty:-',
    ]);
    expect(describePairingAround(conversation, 'toolu_1', 0)).toEqual([
      'assistant:reasoning:-',
      'assistant:tool-call:toolu_1',
      'assistant:tool-call:toolu_2',
    ]);
  });

  it('anchors on an orphan tool result when no call has the id, and returns [] for an unknown id', () => {
    const orphan: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'toolu_9', output: 'x' }] },
    ];
    expect(describePairingAround(orphan, 'toolu_9', 0)).toEqual(['tool:tool-result:toolu_9']);
    expect(describePairingAround(conversation, 'toolu_404')).toEqual([]);
  });
});

describe('findUnpairedToolCalls / findOrphanToolResults (R3.7 input)', () => {
  it('finds tool calls without a later result', () => {
    expect(findUnpairedToolCalls(conversation)).toEqual(['toolu_2']);
    expect(findUnpairedToolCalls([])).toEqual([]);
  });

  it('does not count a result that came before its call', () => {
    const reversed: Message[] = [
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_1', output: 'x' }] },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 't', input: '{}' }] },
    ];
    expect(findUnpairedToolCalls(reversed)).toEqual(['call_1']);
    expect(findOrphanToolResults(reversed)).toEqual(['call_1']);
  });

  it('finds results whose call never appeared', () => {
    const withOrphan: Message[] = [
      ...conversation,
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'toolu_2', output: 'ok' }, { type: 'tool-result', toolCallId: 'toolu_x', output: 'x' }] },
    ];
    expect(findOrphanToolResults(withOrphan)).toEqual(['toolu_x']);
    expect(findUnpairedToolCalls(withOrphan)).toEqual([]);
  });
});
