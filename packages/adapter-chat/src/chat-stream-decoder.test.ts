import { describe, expect, it } from 'vitest';
import { TurnError, type DecodedStreamEvent } from '@turnguard/core';
import { decodeChatStream } from './chat-stream-decoder.js';
import { collectEvents, frameRecordedLines, readRecordedStreams, streamOfChunks } from '@turnguard/testkit';
import { joinDecodedContent, readRecordingContent, splitBytesRandomly } from './chat-fixture-replay.test-helper.js';

const fixtures = readRecordedStreams('chat');

function decode(chunks: ReadonlyArray<string | Uint8Array>): Promise<DecodedStreamEvent[]> {
  return collectEvents(decodeChatStream(streamOfChunks(chunks)));
}

function expectedUsage(raw: Record<string, any>) {
  return {
    inputTokens: raw.prompt_tokens,
    cachedInputTokens: raw.prompt_tokens_details?.cached_tokens ?? raw.prompt_cache_hit_tokens,
    cacheCreationInputTokens: raw.prompt_tokens_details?.cache_write_tokens,
    outputTokens: raw.completion_tokens,
    reasoningTokens: raw.completion_tokens_details?.reasoning_tokens,
    totalTokens: raw.total_tokens,
  };
}

describe('decodeChatStream on recorded provider streams (R7.2)', () => {
  it('has the chat fixtures to replay', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(7);
  });

  for (const fixture of fixtures) {
    describe(fixture.file, () => {
      const recording = readRecordingContent(fixture.lines);

      it('R7.2: joined text, reasoning and tool arguments equal the recording, with its finish reason and usage', async () => {
        const events = await decode([frameRecordedLines('chat', fixture.lines)]);
        const decoded = joinDecodedContent(events);
        expect(decoded.text).toBe(recording.text);
        expect(decoded.reasoning).toBe(recording.reasoning);
        expect(decoded.toolCalls.map(({ name, input }) => ({ name, input }))).toEqual([...recording.toolInputs.values()]);
        for (const call of decoded.toolCalls) expect(call.deltas).toBe(call.input);
        expect(events.filter((event) => event.type === 'finish')).toEqual([
          { type: 'finish', finishReason: expect.objectContaining({ raw: recording.finishReason }) },
        ]);
        const usageEvents = events.filter((event) => event.type === 'usage');
        expect(recording.usage).toBeDefined();
        expect(usageEvents.at(-1)).toEqual({ type: 'usage', usage: expectedUsage(recording.usage!) });
        expect(events.filter((event) => event.type === 'error')).toEqual([]);
        expect(events.at(-1)).toEqual(expectedStreamEnd(true, fixture.lines));
        expect(events.filter((event) => event.type === 'response-metadata')).toHaveLength(1);
      });

      it('R7.2: the same events whatever the byte split (hand-split chunks)', async () => {
        const bytes = new TextEncoder().encode(frameRecordedLines('chat', fixture.lines));
        const whole = await decode([bytes]);
        for (const seed of [1, 7, 42, 1234]) {
          expect(await decode(splitBytesRandomly(bytes, seed))).toEqual(whole);
        }
        expect(await decode(splitBytesRandomly(bytes, 99, 2))).toEqual(whole);
      });

      it('R7.2/R4.1: cut after every line, no terminal frame unless the cut line was the terminal frame', async () => {
        for (let keep = 0; keep < fixture.lines.length; keep += 1) {
          const events = await decode([frameRecordedLines('chat', fixture.lines.slice(0, keep + 1), { withDone: false })]);
          const sawTerminal = recording.terminalLine !== undefined && keep >= recording.terminalLine;
          expect(events.at(-1)).toEqual(expectedStreamEnd(sawTerminal, fixture.lines.slice(0, keep + 1)));
          expect(events.some((event) => event.type === 'finish')).toBe(sawTerminal);
          expect(events.filter((event) => event.type === 'error')).toEqual([]);
        }
      });
    });
  }
});

/** R4.1: `toolCallSeen` is reported exactly when the kept lines carry a tool-call fragment (read from the recording). */
function expectedStreamEnd(terminalFrameSeen: boolean, lines: readonly string[]) {
  const toolCallSeen = lines.some((line) => {
    const payload = JSON.parse(line) as { choices?: Array<{ delta?: { tool_calls?: unknown[] } }> };
    return (payload.choices?.[0]?.delta?.tool_calls?.length ?? 0) > 0;
  });
  return toolCallSeen ? { type: 'stream-end', terminalFrameSeen, toolCallSeen } : { type: 'stream-end', terminalFrameSeen };
}

const chunk = (choice: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, ...choice }], ...extra })}\n\n`;

describe('decodeChatStream edge cases', () => {
  it('R7.2: [DONE] alone is not a terminal frame', async () => {
    const events = await decode([chunk({ delta: { content: 'Hi' }, finish_reason: null }), 'data: [DONE]\n\n']);
    expect(events.at(-1)).toEqual({ type: 'stream-end', terminalFrameSeen: false });
    expect(events.map((event) => event.type)).toEqual(['response-metadata', 'text-start', 'text-delta', 'text-end', 'stream-end']);
  });

  it('R7.2: an unfinished tool call at EOF gets no end event, a finished one does', async () => {
    const start = chunk({ delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a"' } }] } });
    const cut = await decode([start]);
    expect(cut.map((event) => event.type)).toEqual(['response-metadata', 'tool-call-start', 'tool-call-delta', 'stream-end']);
    expect(cut.at(-1)).toEqual({ type: 'stream-end', terminalFrameSeen: false, toolCallSeen: true });
    const done = await decode([start, chunk({ delta: { tool_calls: [{ index: 0, function: { arguments: ':1}' } }] } }), chunk({ delta: {}, finish_reason: 'tool_calls' })]);
    expect(done.filter((event) => event.type === 'tool-call-end')).toEqual([{ type: 'tool-call-end', toolCallId: 'call_1', toolName: 'f', input: '{"a":1}' }]);
    expect(done.find((event) => event.type === 'finish')).toEqual({ type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' } });
  });

  it('R4.1: a tool-call fragment too incomplete to start a call (no id or name yet) is still reported at the end', async () => {
    const argsFirst = await decode([chunk({ delta: { tool_calls: [{ index: 0, function: { arguments: '{"a"' } }] } })]);
    expect(argsFirst.some((event) => event.type === 'tool-call-start')).toBe(false);
    expect(argsFirst.at(-1)).toEqual({ type: 'stream-end', terminalFrameSeen: false, toolCallSeen: true });
  });

  it('R7.2: reads delta.reasoning (vLLM/OpenRouter) as a string, {text} or {content} (codex chat.rs)', async () => {
    const events = await decode([
      chunk({ delta: { reasoning: 'a' } }),
      chunk({ delta: { reasoning: { text: 'b' } } }),
      chunk({ delta: { reasoning: { content: 'c' } } }),
      chunk({ delta: { content: 'answer' } }),
      chunk({ delta: {}, finish_reason: 'stop' }),
    ]);
    expect(joinDecodedContent(events)).toMatchObject({ reasoning: 'abc', text: 'answer' });
    expect(events.filter((event) => event.type !== 'stream-end' && /-(start|end)$/.test(event.type))).toEqual([
      { type: 'reasoning-start', id: 'reasoning-0' },
      { type: 'reasoning-end', id: 'reasoning-0' },
      { type: 'text-start', id: 'text-1' },
      { type: 'text-end', id: 'text-1' },
    ]);
  });

  it('R7.2/R7.4: an OpenAI in-stream error payload becomes a classified error event, never a throw', async () => {
    const events = await decode([
      chunk({ delta: { content: 'partial' } }),
      'data: {"error":{"message":"The server had an error processing your request.","type":"server_error","param":null,"code":null}}\n\n',
    ]);
    const error = events.find((event) => event.type === 'error');
    expect(error?.type === 'error' && error.error).toMatchObject({ kind: 'server', retryable: true });
    expect(events.at(-1)).toEqual({ type: 'stream-end', terminalFrameSeen: false });
  });

  it('R7.4: `event: error`, numeric OpenRouter codes and bare vLLM errors are error events', async () => {
    const events = await decode([
      'event: error\ndata: {"message":"overloaded"}\n\n',
      'data: {"error":{"message":"Rate limited","code":429}}\n\n',
      'data: {"object":"error","message":"This model\'s maximum context length is 131072 tokens. However, you requested 140000 tokens"}\n\n',
    ]);
    const errors = events.flatMap((event) => (event.type === 'error' ? [event.error] : []));
    expect(errors.map((error) => [error.kind, error.status])).toEqual([
      ['overloaded', undefined],
      ['rate_limit', 429],
      ['prompt_too_long', undefined],
    ]);
    expect(errors.every((error) => TurnError.isInstance(error))).toBe(true);
  });

  it('R7.2: an unparseable chunk is a MALFORMED_CHUNK error event; comments and unknown fields are ignored', async () => {
    const events = await decode([': OPENROUTER PROCESSING\n\n', 'data: {not json\n\n', chunk({ delta: { content: 'x', surprise: 1 } }, { extra_field: true })]);
    const errors = events.flatMap((event) => (event.type === 'error' ? [event.error] : []));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: 'MALFORMED_CHUNK' });
    expect(errors[0]?.message).not.toContain('not json');
    expect(joinDecodedContent(events).text).toBe('x');
  });

  it('R7.2: a body cut inside a record is a cut, not a malformed chunk', async () => {
    const events = await decode([chunk({ delta: { content: 'x' } }), 'data: {"id":"c1","choi']);
    expect(events.filter((event) => event.type === 'error')).toEqual([]);
    expect(events.at(-1)).toEqual({ type: 'stream-end', terminalFrameSeen: false });
  });

  it('R7.2: a last record without its blank line still counts', async () => {
    const last = chunk({ delta: {}, finish_reason: 'stop' }).trimEnd();
    const events = await decode([chunk({ delta: { content: 'x' } }), last]);
    expect(events.at(-1)).toEqual({ type: 'stream-end', terminalFrameSeen: true });
  });

  it('R7.2: multi-byte characters split across byte chunks decode intact', async () => {
    const bytes = new TextEncoder().encode(chunk({ delta: { content: 'héllo 思考 🎉' } }) + chunk({ delta: {}, finish_reason: 'stop' }));
    const pieces = Array.from(bytes, (byte) => Uint8Array.of(byte));
    expect(joinDecodedContent(await decode(pieces)).text).toBe('héllo 思考 🎉');
  });

  it('R7.2: a body stream failure propagates as a throw (transport), after the events so far', async () => {
    const encoder = new TextEncoder();
    let sent = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (!sent) {
          sent = true;
          controller.enqueue(encoder.encode(chunk({ delta: { content: 'x' } })));
        } else controller.error(new TypeError('terminated'));
      },
    });
    const seen: string[] = [];
    await expect(async () => {
      for await (const event of decodeChatStream(body)) seen.push(event.type);
    }).rejects.toThrow('terminated');
    expect(seen).toContain('text-delta');
  });

  it('stopping early cancels the upstream body', async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode(chunk({ delta: { content: 'x' } })));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const event of decodeChatStream(body)) if (event.type === 'text-delta') break;
    expect(cancelled).toBe(true);
  });

  it('R5.1: usage with missing counts stays unknown, never 0', async () => {
    const events = await decode([chunk({ delta: {}, finish_reason: 'stop' }), `data: ${JSON.stringify({ id: 'c1', choices: [], usage: { completion_tokens: 5 } })}\n\n`]);
    expect(events.find((event) => event.type === 'usage')).toEqual({
      type: 'usage',
      usage: { inputTokens: undefined, cachedInputTokens: undefined, cacheCreationInputTokens: undefined, outputTokens: 5, reasoningTokens: undefined, totalTokens: undefined },
    });
  });
});
