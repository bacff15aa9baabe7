import { describe, expect, it } from 'vitest';
import type { TurnEvent } from '@turnguard/core';
import { TurnError } from '@turnguard/core';
import { MessagesStreamEncoder } from './messages-stream-encoder.js';

function records(text: string): Array<{ event: string; data: Record<string, unknown> }> {
  return text
    .split('\n\n')
    .filter((record) => record !== '')
    .map((record) => {
      const [eventLine, dataLine] = record.split('\n');
      return { event: (eventLine ?? '').replace('event: ', ''), data: JSON.parse((dataLine ?? '').replace('data: ', '')) as Record<string, unknown> };
    });
}

function encodeAll(events: TurnEvent[]): string {
  const encoder = new MessagesStreamEncoder({ generateMessageId: () => 'msg_generated' });
  return events.map((event) => encoder.encodeEvent(event)).join('');
}

describe('MessagesStreamEncoder (R7.3)', () => {
  it('frames each record as `event: <type>` + `data: <json>` with the same type inside', () => {
    const text = encodeAll([
      { type: 'response-metadata', responseId: 'msg_1', model: 'claude-x' },
      { type: 'usage', usage: { inputTokens: 5, outputTokens: 1, cachedInputTokens: undefined, cacheCreationInputTokens: undefined, reasoningTokens: undefined, totalTokens: 6 } },
      { type: 'text-start', id: 'a' },
      { type: 'text-delta', id: 'a', delta: 'hi' },
      { type: 'text-end', id: 'a' },
      { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' } },
    ]);
    const parsed = records(text);
    expect(parsed.map((record) => record.event)).toEqual(['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
    for (const record of parsed) expect(record.data['type']).toBe(record.event);
    expect(parsed[0]?.data['message']).toMatchObject({ id: 'msg_1', model: 'claude-x', usage: { input_tokens: 5, output_tokens: 1 } });
    expect(parsed[4]?.data).toMatchObject({ delta: { stop_reason: 'end_turn' }, usage: { input_tokens: 5, output_tokens: 1 } });
  });

  it('never fakes a terminal frame: no finish → no message_delta/message_stop', () => {
    const parsed = records(encodeAll([{ type: 'reasoning-start', id: 'r' }, { type: 'reasoning-delta', id: 'r', delta: 'thinking…' }]));
    expect(parsed.map((record) => record.event)).toEqual(['message_start', 'content_block_start', 'content_block_delta']);
    expect(parsed[0]?.data['message']).toMatchObject({ id: 'msg_generated' });
  });

  it('sends a whole tool input as one fragment, closes open blocks at finish, and writes signature then stop', () => {
    const parsed = records(
      encodeAll([
        { type: 'reasoning-start', id: 'r' },
        { type: 'reasoning-end', id: 'r', signature: 'SIG' },
        { type: 'tool-call-start', toolCallId: 'call_1', toolName: 'get' },
        { type: 'tool-call-end', toolCallId: 'call_1', toolName: 'get', input: '{"a":1}' },
        { type: 'text-start', id: 't' },
        { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' } },
      ]),
    );
    expect(parsed.slice(1).map((record) => [record.event, record.data['index'], record.data['delta'] ?? record.data['content_block']])).toEqual([
      ['content_block_start', 0, { type: 'thinking', thinking: '', signature: '' }],
      ['content_block_delta', 0, { type: 'signature_delta', signature: 'SIG' }],
      ['content_block_stop', 0, undefined],
      ['content_block_start', 1, { type: 'tool_use', id: 'call_1', name: 'get', input: {} }],
      ['content_block_delta', 1, { type: 'input_json_delta', partial_json: '{"a":1}' }],
      ['content_block_stop', 1, undefined],
      ['content_block_start', 2, { type: 'text', text: '' }],
      ['content_block_stop', 2, undefined],
      ['message_delta', undefined, { stop_reason: 'tool_use', stop_sequence: null }],
      ['message_stop', undefined, undefined],
    ]);
  });

  it('turns an error into `event: error` with the Anthropic error type and stops', () => {
    const encoder = new MessagesStreamEncoder();
    const text = encoder.encodeEvent({ type: 'error', error: new TurnError({ kind: 'rate_limit', message: 'slow down' }) });
    expect(records(text)).toEqual([{ event: 'error', data: { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } } }]);
    expect(encoder.encodeEvent({ type: 'text-start', id: 'x' })).toBe('');
  });

  it('sends a ping for a heartbeat and nothing for lifecycle events', () => {
    const encoder = new MessagesStreamEncoder();
    expect(encoder.encodeEvent({ type: 'heartbeat', waitedMs: 1, remainingMs: 2 })).toBe('event: ping\ndata: {"type":"ping"}\n\n');
    expect(encoder.encodeEvent({ type: 'warning', message: 'w' })).toBe('');
    expect(encoder.encodeEvent({ type: 'recovery-start', recoveryId: 'r' })).toBe('');
  });
});
