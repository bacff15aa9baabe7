import { describe, expect, it } from 'vitest';
import { OUTPUT_TRUNCATED_HINT, TRUNCATED_ARGUMENTS_WARNING } from '../tools/parse-tool-input.js';
import type { ToolMessage } from '../types/message.js';
import {
  collectLoopEvents,
  metaTexts,
  reasoning,
  startFakeLoop,
  text,
  toolCall,
  userPrompt,
  type FakeReply,
} from './fake-sampler.test-helper.js';
import { MAX_OUTPUT_TOKENS_RECOVERY_MESSAGE } from './loop-messages.js';

const EXACT_TEXT =
  'Output token limit hit. Resume directly — no apology, no recap of what you were doing. Pick up mid-thought if that is where the cut happened. Break remaining work into smaller pieces.';

const reasons = (transitions: { reason: string }[]) => transitions.map((transition) => transition.reason);

describe('runAgentLoop — output truncation (R3.3, R3.4)', () => {
  it('uses the exact continuation text', () => {
    expect(MAX_OUTPUT_TOKENS_RECOVERY_MESSAGE).toBe(EXACT_TEXT);
  });

  it('escalates once, then adds at most 3 hidden continuations; the 4th truncation adds none and ends with a visible error', async () => {
    const cut = (n: number): FakeReply => ({ events: text(`t${n}`, `part ${n}`), end: 'length' });
    const { run, sampler } = startFakeLoop([cut(0), cut(1), cut(2), cut(3), cut(4)]);
    const events = await collectLoopEvents(run);
    const result = await run.result;

    expect(sampler.requests.map((request) => request.settings.maxOutputTokens)).toEqual([undefined, 64000, 64000, 64000, 64000]);
    expect(reasons(result.transitions)).toEqual([
      'max_output_tokens_escalate',
      'max_output_tokens_recovery',
      'max_output_tokens_recovery',
      'max_output_tokens_recovery',
    ]);
    expect(result.transitions.slice(1).map((transition) => transition.attempt)).toEqual([1, 2, 3]);
    // The escalated resend replays the cut attempt: its output is retracted (R3.8) and not resent.
    expect(events).toContainEqual({ type: 'tombstone', messageId: 'id-1' });
    expect(sampler.requests[1]!.prompt.messages).toEqual(userPrompt().messages);
    expect(metaTexts(sampler.requests[4]!.prompt.messages)).toEqual([EXACT_TEXT, EXACT_TEXT, EXACT_TEXT]);
    expect(sampler.requests[4]!.prompt.messages.filter((m) => m.isMeta === true).every((m) => m.role === 'user')).toBe(true);
    // 4th consecutive continuation: no meta message, terminal with the visible error.
    expect(metaTexts(result.messages)).toHaveLength(3);
    expect(result.terminal.reason).toBe('max_output_tokens');
    expect(result.terminal.error?.message).toMatch(/repeatedly exceeded the output token limit/);
    const last = result.messages.at(-1)!;
    expect(last).toMatchObject({ role: 'assistant', isApiErrorMessage: true, apiError: { code: 'MAX_OUTPUT_TOKENS' } });
    // What the person sees says it happened repeatedly (R3.4), not just once.
    expect(last.content).toEqual([{ type: 'text', text: 'API Error: The response repeatedly exceeded the output token limit.' }]);
    expect(events.filter((event) => event.type === 'terminal')).toHaveLength(1);
  });

  it('does not escalate a cap the host chose: a truncation under it goes straight to continuation', async () => {
    const chosen = startFakeLoop([{ events: text('a', 'x'), end: 'length' }, { events: text('b', 'y'), end: 'stop' }], {
      settings: { model: 'm', stream: true, maxOutputTokens: 8192 },
    });
    expect(reasons((await chosen.run.result).transitions)).toEqual(['max_output_tokens_recovery']);
    expect(chosen.sampler.requests.map((request) => request.settings.maxOutputTokens)).toEqual([8192, 8192]);
  });

  it('does not escalate when escalation is off, or when the host cap is already at least the escalated cap', async () => {
    const off = startFakeLoop([{ events: text('a', 'x'), end: 'length' }, { events: text('b', 'y'), end: 'stop' }], { escalatedMaxOutputTokens: false });
    await off.run.result;
    expect(reasons((await off.run.result).transitions)).toEqual(['max_output_tokens_recovery']);
    const big = startFakeLoop([{ events: text('a', 'x'), end: 'length' }, { events: text('b', 'y'), end: 'stop' }], {
      settings: { model: 'm', stream: true, maxOutputTokens: 128000 },
    });
    expect(reasons((await big.run.result).transitions)).toEqual(['max_output_tokens_recovery']);
    expect(big.sampler.requests.map((request) => request.settings.maxOutputTokens)).toEqual([128000, 128000]);
  });

  it('resets the count after a tool call: truncate → tool call → truncate starts again at 1', async () => {
    const { run, sampler } = startFakeLoop(
      [
        { events: text('a', 'one'), end: 'length' },
        { events: toolCall('call_1', 'read', '{"path":"a"}'), end: 'tool-calls' },
        { events: text('b', 'two'), end: 'length' },
        { events: text('c', 'done'), end: 'stop' },
      ],
      { escalatedMaxOutputTokens: false, toolHandlers: { read: async () => 'file body' } },
    );
    const result = await run.result;
    expect(reasons(result.transitions)).toEqual(['max_output_tokens_recovery', 'next_turn', 'max_output_tokens_recovery']);
    expect(result.transitions.map((transition) => transition.attempt)).toEqual([1, undefined, 1]);
    expect(result.terminal.reason).toBe('completed');
    expect(sampler.requests).toHaveLength(4);
  });

  it('truncated with tool calls: runs the tools, still adds the meta message, continues, and does not use up the count', async () => {
    const calls: unknown[] = [];
    const cut = (n: number): FakeReply => ({ events: text(`t${n}`, `p${n}`), end: 'length' });
    const { run, sampler } = startFakeLoop(
      [{ events: [...text('a', 'writing'), ...toolCall('call_w', 'write', '{"path":"x","body":"abc')], end: 'length' }, cut(1), cut(2), cut(3), { events: text('z', 'ok'), end: 'stop' }],
      { escalatedMaxOutputTokens: false, toolHandlers: { write: async (input) => (calls.push(input), 'written') } },
    );
    const result = await run.result;
    // R3.14: the cut arguments were closed and the tool ran, with the warning in its result.
    expect(calls).toEqual([{ path: 'x', body: 'abc' }]);
    const second = sampler.requests[1]!.prompt.messages;
    expect(second.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    const toolMessage = second[2] as ToolMessage;
    expect(toolMessage.content[0]!.output).toContain(TRUNCATED_ARGUMENTS_WARNING);
    expect(metaTexts(second)).toEqual([EXACT_TEXT]);
    expect(reasons(result.transitions)).toEqual([
      'max_output_tokens_tool_continue',
      'max_output_tokens_recovery',
      'max_output_tokens_recovery',
      'max_output_tokens_recovery',
    ]);
    expect(result.terminal.reason).toBe('completed');
  });

  it('gives a malformed-arguments tool error with the truncation hint when the response was truncated (R3.13)', async () => {
    const { run, sampler } = startFakeLoop(
      [{ events: toolCall('call_1', 'write', '{"items": [1, 2'), end: 'length' }, { events: text('z', 'ok'), end: 'stop' }],
      { escalatedMaxOutputTokens: false, toolHandlers: { write: async () => 'never' } },
    );
    await run.result;
    const toolMessage = sampler.requests[1]!.prompt.messages[2] as ToolMessage;
    expect(toolMessage.content[0]).toMatchObject({ toolCallId: 'call_1', isError: true });
    expect(toolMessage.content[0]!.output).toContain(OUTPUT_TRUNCATED_HINT);
  });

  it('keeps a reasoning-only truncated turn for the continuation and drops a fully empty one (R3.5)', async () => {
    const { run, sampler } = startFakeLoop(
      [
        { events: reasoning('r1', 'thinking about it', 'sig-1'), end: 'length' },
        { events: [{ type: 'text-start', id: 'e' }, { type: 'text-end', id: 'e' }], end: 'length' },
        { events: text('z', 'answer'), end: 'stop' },
      ],
      { escalatedMaxOutputTokens: false },
    );
    const result = await run.result;
    const second = sampler.requests[1]!.prompt.messages;
    expect(second[1]).toEqual({ role: 'assistant', content: [{ type: 'reasoning', text: 'thinking about it', signature: 'sig-1' }] });
    const third = sampler.requests[2]!.prompt.messages;
    expect(third.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'user']);
    expect(result.terminal.reason).toBe('completed');
  });

  it('a tool moved to the background counts as a normal tool call', async () => {
    const { run } = startFakeLoop(
      [
        { events: text('a', 'x'), end: 'length' },
        { events: toolCall('call_bg', 'shell', '{"cmd":"sleep 100"}'), end: 'length' },
        { events: text('b', 'y'), end: 'length' },
        { events: text('c', 'z'), end: 'stop' },
      ],
      { escalatedMaxOutputTokens: false, toolHandlers: { shell: async () => 'Command moved to background with id bg-1' } },
    );
    const result = await run.result;
    expect(reasons(result.transitions)).toEqual(['max_output_tokens_recovery', 'max_output_tokens_tool_continue', 'max_output_tokens_recovery']);
    expect(result.transitions.at(-1)!.attempt).toBe(1);
  });
});
