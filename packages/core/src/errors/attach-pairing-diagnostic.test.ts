import { describe, expect, it } from 'vitest';
import type { Message } from '../types/message.js';
import { attachPairingDiagnostic, readPairingRejection } from './attach-pairing-diagnostic.js';
import { TurnError } from './turn-error.js';

describe('readPairingRejection: each provider wording of a pairing 400 (R2.3)', () => {
  const wordings: Array<[string, string | undefined]> = [
    ['messages.6: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01Abm. Each `tool_use` block must have a corresponding `tool_result` block in the next message.', 'toolu_01Abm'],
    ['messages.48.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_019E. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.', 'toolu_019E'],
    ['Did not find 1 tool_result block(s) at the beginning of this message. Messages following tool_use blocks must begin with a matching number of tool_result blocks.', undefined],
    ["An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_abc", 'call_abc'],
    ["Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", undefined],
    ['No tool output found for function call call_def.', 'call_def'],
    ['No tool call found for function call output with call_id call_ghi.', 'call_ghi'],
  ];
  for (const [message, toolCallId] of wordings) {
    it(message.slice(0, 60), () => expect(readPairingRejection(message)).toEqual({ toolCallId }));
  }
  it('is not fooled by an unrelated 400', () => expect(readPairingRejection('max_tokens: must be at most 8192')).toBeUndefined());
});

describe('attachPairingDiagnostic (R2.3)', () => {
  const orphan: Message[] = [
    { role: 'user', content: [{ type: 'text', text: 'hi' }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_lost', output: 'private output' }] },
  ];
  const error = (message: string, status = 400) => new TurnError({ kind: 'invalid_request', message, status });

  it('anchors on the orphan result when the wording names no id', () => {
    const attached = attachPairingDiagnostic(error("messages with role 'tool' must be a response to a preceding message with 'tool_calls'"), () => orphan);
    expect(attached.details).toMatchObject({ pairing: ['user:text:-', 'tool:tool-result:call_lost'], pairingToolCallId: 'call_lost' });
  });

  it('leaves other statuses alone and does not read the messages', () => {
    let read = false;
    const untouched = error('No tool output found for function call call_1.', 500);
    expect(attachPairingDiagnostic(untouched, () => ((read = true), orphan))).toBe(untouched);
    expect(read).toBe(false);
  });

  it('an unreadable request keeps the error as it was', () => {
    const original = error('No tool output found for function call call_1.');
    expect(attachPairingDiagnostic(original, () => { throw new Error('unparseable'); })).toBe(original);
  });
});
