import { REASONING_ONLY_CONTENT_NOTE } from '@turnguard/adapter-chat';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { MAX_OUTPUT_TOKENS_RECOVERY_MESSAGE, OUTPUT_TRUNCATED_HINT, TRUNCATED_ARGUMENTS_WARNING } from '../../src/index.js';
import {
  collect,
  countUserTexts,
  enqueue,
  ADAPTER_DEFAULT_CAP,
  MAX_TOKENS_FIELD,
  PROTOCOLS,
  reply,
  sentBodies,
  sentConversation,
  startLoop,
  startUpstream,
  toolIdsSent,
  truncated,
} from './loop-harness.js';

// Output-token truncation (R3.3, R3.4), on all three protocols, through the real adapters and the testkit upstream.
const EXACT = 'Output token limit hit. Resume directly — no apology, no recap of what you were doing. Pick up mid-thought if that is where the cut happened. Break remaining work into smaller pieces.';
const { upstream, server } = startUpstream();
afterEach(() => upstream.reset());
afterAll(() => server.close());

const reasonsOf = (transitions: { reason: string }[]) => transitions.map((transition) => transition.reason);

describe.each(PROTOCOLS)('agent loop truncation on %s (R3.3, R3.4)', (protocol) => {
  it('escalates the cap once, then continues with the exact hidden meta message', async () => {
    expect(MAX_OUTPUT_TOKENS_RECOVERY_MESSAGE).toBe(EXACT);
    enqueue(
      upstream,
      protocol,
      truncated(reply(protocol).text('First half'), protocol),
      truncated(reply(protocol).text('Escalated half'), protocol),
      reply(protocol).text(' and the end.'),
    );
    const run = startLoop(protocol);
    const events = await collect(run);
    const result = await run.result;
    const bodies = sentBodies(upstream, protocol);
    // The host set no cap, so the adapter's default is in use and may be escalated once (R3.3).
    expect(bodies.map((body) => body[MAX_TOKENS_FIELD[protocol]])).toEqual([ADAPTER_DEFAULT_CAP[protocol], 64000, 64000]);
    expect(reasonsOf(result.transitions)).toEqual(['max_output_tokens_escalate', 'max_output_tokens_recovery']);
    // R3.8: the cut attempt is replayed, so its output is retracted, and not sent back.
    expect(events).toContainEqual({ type: 'tombstone', messageId: 'id-1' });
    expect(JSON.stringify(sentConversation(bodies[1]!))).not.toContain('First half');
    expect(countUserTexts(bodies[2]!, EXACT)).toBe(1);
    expect(JSON.stringify(sentConversation(bodies[2]!))).toContain('Escalated half');
    const meta = result.messages.filter((message) => message.isMeta === true);
    expect(meta).toEqual([{ role: 'user', isMeta: true, content: [{ type: 'text', text: EXACT }] }]);
    expect(events.filter((event) => event.type === 'message' && event.message.isMeta === true)).toHaveLength(1);
    expect(result.terminal).toMatchObject({ reason: 'completed', finishReason: { unified: 'stop' } });
  });

  it('caps continuations at 3: the 4th truncation adds no message and ends with the error', async () => {
    for (let n = 0; n < 4; n += 1) enqueue(upstream, protocol, truncated(reply(protocol).text(`piece ${n}`), protocol));
    const run = startLoop(protocol, { escalatedMaxOutputTokens: false });
    const events = await collect(run);
    const result = await run.result;
    const bodies = sentBodies(upstream, protocol);
    expect(bodies).toHaveLength(4);
    expect(bodies.map((body) => countUserTexts(body, EXACT))).toEqual([0, 1, 2, 3]);
    expect(result.messages.filter((message) => message.isMeta === true)).toHaveLength(3);
    expect(result.terminal.reason).toBe('max_output_tokens');
    const visible = events.filter((event) => event.type === 'message' && event.message.role === 'assistant' && event.message.isApiErrorMessage === true);
    expect(visible).toHaveLength(1);
    expect(result.terminal.error?.message).toMatch(/repeatedly exceeded the output token limit/);
  });

  it('truncation with a tool call runs the tool, adds the meta message and continues without using up the count', async () => {
    enqueue(
      upstream,
      protocol,
      truncated(reply(protocol).text('Reading.').toolCall('read_file', { path: 'a.txt' }, { id: 'call_read' }), protocol),
      reply(protocol).text('Done.'),
    );
    const seen: unknown[] = [];
    const run = startLoop(protocol, { toolHandlers: { read_file: async (input) => (seen.push(input), 'contents of a') } });
    const result = await run.result;
    const bodies = sentBodies(upstream, protocol);
    expect(seen).toEqual([{ path: 'a.txt' }]);
    expect(toolIdsSent(bodies[1]!)).toEqual({ calls: ['call_read'], results: ['call_read'] });
    expect(countUserTexts(bodies[1]!, EXACT)).toBe(1);
    expect(reasonsOf(result.transitions)).toEqual(['max_output_tokens_tool_continue']);
    expect(result.terminal.reason).toBe('completed');
  });

  it('resets the count after a tool call', async () => {
    enqueue(
      upstream,
      protocol,
      truncated(reply(protocol).text('one'), protocol),
      reply(protocol).toolCall('read_file', { path: 'b' }, { id: 'call_b' }),
      truncated(reply(protocol).text('two'), protocol),
      reply(protocol).text('three'),
    );
    const run = startLoop(protocol, { escalatedMaxOutputTokens: false, toolHandlers: { read_file: async () => 'b' } });
    const result = await run.result;
    expect(reasonsOf(result.transitions)).toEqual(['max_output_tokens_recovery', 'next_turn', 'max_output_tokens_recovery']);
    expect(result.transitions.map((transition) => transition.attempt)).toEqual([1, undefined, 1]);
    expect(sentBodies(upstream, protocol).map((body) => countUserTexts(body, EXACT))).toEqual([0, 1, 1, 2]);
  });

  it('keeps a reasoning-only truncated turn when continuing (R3.5)', async () => {
    enqueue(upstream, protocol, truncated(reply(protocol).reasoning('Let me think about the lemma step by step'), protocol), reply(protocol).text('QED'));
    const run = startLoop(protocol, { escalatedMaxOutputTokens: false });
    const result = await run.result;
    expect(result.terminal.reason).toBe('completed');
    const second = sentConversation(sentBodies(upstream, protocol)[1]!);
    const json = JSON.stringify(second);
    expect(json).toContain('Let me think about the lemma step by step');
    if (protocol === 'chat') {
      const assistant = second.find((entry) => entry['role'] === 'assistant')!;
      expect(assistant).toMatchObject({ reasoning_content: 'Let me think about the lemma step by step', content: REASONING_ONLY_CONTENT_NOTE });
    } else if (protocol === 'messages') {
      const assistant = second.find((entry) => entry['role'] === 'assistant')!;
      expect((assistant['content'] as Record<string, unknown>[])[0]).toMatchObject({ type: 'thinking', signature: expect.any(String) });
    } else {
      expect(second.some((entry) => entry['type'] === 'reasoning' && typeof entry['id'] === 'string')).toBe(true);
    }
  });

  it('malformed arguments in a truncated response give the truncation hint; recoverable ones run with the warning (R3.13, R3.14)', async () => {
    enqueue(
      upstream,
      protocol,
      truncated(
        reply(protocol)
          .toolCall('write_file', '{"path": "a", "body": "unclosed string', { id: 'call_str' })
          .toolCall('write_file', '{"path": "b", "meta": {"k": "v"', { id: 'call_brace' })
          .toolCall('write_file', '{"path": "c", "lines": ["x", "y"', { id: 'call_arr' })
          .toolCall('write_file', '{"path" "d"', { id: 'call_bad' }),
        protocol,
      ),
      reply(protocol).text('ok'),
    );
    const ran: unknown[] = [];
    const run = startLoop(protocol, { toolHandlers: { write_file: async (input) => (ran.push(input), 'written') } });
    const result = await run.result;
    expect(ran).toEqual([{ path: 'a', body: 'unclosed string' }, { path: 'b', meta: { k: 'v' } }]);
    const tool = result.messages.find((message) => message.role === 'tool')!;
    const outputs = Object.fromEntries(tool.content.map((part) => [part.type === 'tool-result' ? part.toolCallId : '', part.type === 'tool-result' ? part : undefined]));
    expect(outputs['call_str']).toMatchObject({ output: expect.stringContaining(TRUNCATED_ARGUMENTS_WARNING) });
    expect(outputs['call_brace']).toMatchObject({ output: expect.stringContaining(TRUNCATED_ARGUMENTS_WARNING) });
    expect(outputs['call_arr']).toMatchObject({ isError: true, output: expect.stringContaining(OUTPUT_TRUNCATED_HINT) });
    expect(outputs['call_bad']).toMatchObject({ isError: true, output: expect.stringContaining(OUTPUT_TRUNCATED_HINT) });
    expect(toolIdsSent(sentBodies(upstream, protocol)[1]!).results).toEqual(['call_str', 'call_brace', 'call_arr', 'call_bad']);
  });

  it('an abort stops the recursion: no request after it', async () => {
    const controller = new AbortController();
    enqueue(upstream, protocol, truncated(reply(protocol).text('cut'), protocol), reply(protocol).text('never sent'));
    const run = startLoop(protocol, { escalatedMaxOutputTokens: false, signal: controller.signal });
    for await (const event of run) if (event.type === 'transition') controller.abort();
    const result = await run.result;
    expect(sentBodies(upstream, protocol)).toHaveLength(1);
    expect(result.terminal.reason).toBe('aborted_streaming');
  });
});
