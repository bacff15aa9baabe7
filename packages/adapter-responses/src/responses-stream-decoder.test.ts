import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DecodedStreamEvent } from '@turnguard/core';
import { collectEvents, frameRecordedLines, readRecordedStreams, streamOfText } from '@turnguard/testkit';
import { decodeResponsesStream } from './responses-stream-decoder.js';

type JsonObject = Record<string, any>;

const TERMINAL_TYPES = new Set(['response.completed', 'response.incomplete', 'response.failed']);

const recordings = readRecordedStreams('responses');

function decodeText(text: string, offsets: number[] = []): Promise<DecodedStreamEvent[]> {
  return collectEvents(decodeResponsesStream(streamOfText(text, offsets)));
}

/** Concatenated deltas of one kind, e.g. all `text-delta`s. */
/** R4.1: `toolCallSeen` exactly when the kept lines added a `*_call` output item, hosted ones included (read from the recording). */
function expectedStreamEnd(terminalFrameSeen: boolean, lines: readonly string[]) {
  const toolCallSeen = lines.some((line) => {
    const payload = JSON.parse(line) as { type?: string; item?: { type?: string } };
    return payload.type === 'response.output_item.added' && (payload.item?.type ?? '').endsWith('_call');
  });
  return toolCallSeen ? { type: 'stream-end', terminalFrameSeen, toolCallSeen } : { type: 'stream-end', terminalFrameSeen };
}

function joinDeltas(events: DecodedStreamEvent[], type: 'text-delta' | 'reasoning-delta' | 'tool-call-delta'): string {
  return events.map((event) => (event.type === type ? event.delta : '')).join('');
}

/** What the recording itself says, read from its `.done` items and terminal response — not hand-typed. */
function expectationsFromRecording(lines: string[]) {
  const events = lines.map((line) => JSON.parse(line) as JsonObject);
  const doneItems = events.filter((event) => event.type === 'response.output_item.done').map((event) => event.item as JsonObject);
  const terminal = events.find((event) => TERMINAL_TYPES.has(event.type));
  const text = doneItems
    .filter((item) => item.type === 'message')
    .flatMap((item) => item.content as JsonObject[])
    .map((part) => part.text ?? '')
    .join('');
  const reasoning = doneItems
    .filter((item) => item.type === 'reasoning')
    .map((item) => (item.summary as JsonObject[]).map((part) => part.text).join('\n\n'))
    .join('');
  const toolInputs = doneItems
    .filter((item) => item.type === 'function_call' || item.type === 'custom_tool_call')
    .map((item) => ({ toolCallId: item.call_id, toolName: item.name, input: item.arguments ?? item.input }));
  return { terminal: terminal as JsonObject, text, reasoning, toolInputs, terminalIndex: events.indexOf(terminal!) };
}

describe('decodeResponsesStream on recorded fixtures (R7.2)', () => {
  for (const { file: name, lines } of recordings) {
    it(`${name}: joined text, reasoning, tool input, finish and usage equal the recording`, async () => {
      const expected = expectationsFromRecording(lines);
      const events = await decodeText(frameRecordedLines('responses', lines));

      expect(joinDeltas(events, 'text-delta')).toBe(expected.text);
      expect(joinDeltas(events, 'reasoning-delta')).toBe(expected.reasoning);
      const ends = events.filter((event) => event.type === 'tool-call-end');
      expect(ends.map(({ toolCallId, toolName, input }) => ({ toolCallId, toolName, input }))).toEqual(expected.toolInputs);
      expect(joinDeltas(events, 'tool-call-delta')).toBe(expected.toolInputs.map((call) => call.input).join(''));
      expect(events.filter((event) => event.type === 'response-metadata')).toHaveLength(1);
      expect(events.at(-1)).toEqual(expectedStreamEnd(true, lines));

      const response = expected.terminal.response as JsonObject;
      const finish = events.find((event) => event.type === 'finish');
      const expectedUnified =
        response.status === 'failed' ? 'error' : expected.toolInputs.length > 0 ? 'tool-calls' : 'stop';
      expect(finish).toEqual({ type: 'finish', finishReason: { unified: expectedUnified, raw: response.status } });

      const usage = events.find((event) => event.type === 'usage');
      if (response.usage === null) {
        expect(usage).toBeUndefined(); // R5.1: no usage reported → no invented zeros
      } else {
        expect(usage).toEqual({
          type: 'usage',
          usage: {
            inputTokens: response.usage.input_tokens,
            cachedInputTokens: response.usage.input_tokens_details?.cached_tokens,
            cacheCreationInputTokens: undefined,
            outputTokens: response.usage.output_tokens,
            reasoningTokens: response.usage.output_tokens_details?.reasoning_tokens,
            totalTokens: response.usage.total_tokens,
          },
        });
      }
      // Each block opened is closed exactly once.
      const count = (type: string) => events.filter((event) => event.type === type).length;
      expect(count('text-start')).toBe(count('text-end'));
      expect(count('reasoning-start')).toBe(count('reasoning-end'));
      expect(count('tool-call-start')).toBe(count('tool-call-end'));
    });

    it(`${name}: cut after every line reports terminalFrameSeen only once the terminal frame arrived`, async () => {
      const { terminalIndex } = expectationsFromRecording(lines);
      for (let kept = 0; kept <= lines.length; kept += 1) {
        const events = await decodeText(frameRecordedLines('responses', lines.slice(0, kept)));
        expect(events.at(-1)).toEqual(expectedStreamEnd(kept > terminalIndex, lines.slice(0, kept)));
        expect(events.some((event) => event.type === 'finish')).toBe(kept > terminalIndex);
      }
    });

    it(`${name}: random byte splits give identical events`, async () => {
      const text = frameRecordedLines('responses', lines);
      const byteLength = new TextEncoder().encode(text).length;
      const reference = JSON.stringify(await decodeText(text));
      await fc.assert(
        fc.asyncProperty(fc.array(fc.integer({ min: 1, max: byteLength - 1 }), { maxLength: 40 }), async (offsets) => {
          expect(JSON.stringify(await decodeText(text, offsets))).toBe(reference);
        }),
        { numRuns: 25 },
      );
    });
  }

  it('openai-error.1: the `error` event and `response.failed` give ONE classified error, and the failed frame is terminal', async () => {
    const events = await decodeText(frameRecordedLines('responses', recordings.find((recording) => recording.name === 'openai-error.1')!.lines));
    const errors = events.flatMap((event) => (event.type === 'error' ? [event.error] : []));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ kind: 'rate_limit', retryable: false, details: { upstreamCode: 'insufficient_quota' } });
    expect(events.map((event) => event.type)).toEqual(['response-metadata', 'error', 'finish', 'stream-end']);
  });
});

describe('decodeResponsesStream on hand-written streams (R7.2)', () => {
  const frame = (payloads: JsonObject[]) => frameRecordedLines('responses', payloads.map((payload) => JSON.stringify(payload)));

  it('a message item opens its text block when it is added, once, before its first content part (R8.7)', async () => {
    const events = await decodeText(
      frame([
        { type: 'response.output_item.added', output_index: 0, item: { id: 'msg_1', type: 'message', role: 'assistant', content: [] } },
        { type: 'response.content_part.added', item_id: 'msg_1', output_index: 0, content_index: 0, part: { type: 'output_text', text: '' } },
        { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Hi' },
        { type: 'response.output_item.done', output_index: 0, item: { id: 'msg_1', type: 'message', content: [] } },
      ]),
    );
    expect(events.map((event) => event.type)).toEqual(['text-start', 'text-delta', 'text-end', 'stream-end']);
    // Cut before its first part: the block is still known, so whoever continues the stream knows the item.
    const cut = await decodeText(frame([{ type: 'response.output_item.added', output_index: 0, item: { id: 'msg_1', type: 'message', content: [] } }]));
    expect(cut[0]).toEqual({ type: 'text-start', id: 'msg_1' });
  });

  it('turns an undecodable record into a typed error event and keeps going', async () => {
    const text = `event: response.output_text.delta\ndata: {not json SECRET-OUTPUT\n\n${frame([
      { type: 'response.completed', response: { status: 'completed', usage: null } },
    ])}`;
    const events = await decodeText(text);
    expect(events[0]).toMatchObject({ type: 'error', error: { name: 'TurnError', kind: 'server', code: 'MALFORMED_CHUNK' } });
    // R4.10: JSON.parse's SyntaxError quotes the record, so it is not kept as cause either.
    const error = (events[0] as { error: Error }).error;
    expect(error.cause).toBeUndefined();
    expect(JSON.stringify({ message: error.message, details: (error as unknown as { details: unknown }).details })).not.toContain('SECRET-OUTPUT');
    expect(events.at(-1)).toEqual({ type: 'stream-end', terminalFrameSeen: true });
  });

  it('maps response.incomplete for max_output_tokens to length and closes the open text block', async () => {
    const events = await decodeText(
      frame([
        { type: 'response.output_item.added', output_index: 0, item: { id: 'msg_1', type: 'message', content: [] } },
        { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Hello,' },
        {
          type: 'response.incomplete',
          response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, usage: { output_tokens: 100 } },
        },
      ]),
    );
    expect(events.map((event) => event.type)).toEqual([
      'text-start',
      'text-delta',
      'text-end',
      'usage',
      'finish',
      'stream-end',
    ]);
    expect(events.find((event) => event.type === 'finish')).toEqual({
      type: 'finish',
      finishReason: { unified: 'length', raw: 'max_output_tokens' },
    });
    // R5.1: only output_tokens was reported; the rest stays unknown, never 0.
    expect(events.find((event) => event.type === 'usage')).toEqual({
      type: 'usage',
      usage: {
        inputTokens: undefined,
        cachedInputTokens: undefined,
        cacheCreationInputTokens: undefined,
        outputTokens: 100,
        reasoningTokens: undefined,
        totalTokens: undefined,
      },
    });
  });

  it('maps content_filter incompletion and a response.failed with context_length_exceeded', async () => {
    const filtered = await decodeText(
      frame([{ type: 'response.incomplete', response: { status: 'incomplete', incomplete_details: { reason: 'content_filter' } } }]),
    );
    expect(filtered.find((event) => event.type === 'finish')).toMatchObject({ finishReason: { unified: 'content-filter' } });
    const failed = await decodeText(
      frame([
        {
          type: 'response.failed',
          response: { status: 'failed', usage: null, error: { code: 'context_length_exceeded', message: 'Your input exceeds\nthe context window' } },
        },
      ]),
    );
    expect(failed.find((event) => event.type === 'error')).toMatchObject({ error: { kind: 'prompt_too_long', retryable: false } });
    expect(failed.find((event) => event.type === 'finish')).toMatchObject({ finishReason: { unified: 'error', raw: 'failed' } });
  });

  it('keeps reasoning item id and encrypted_content (from .done, the complete copy) and raw reasoning_text deltas', async () => {
    const events = await decodeText(
      frame([
        { type: 'response.output_item.added', output_index: 0, item: { id: 'rs_1', type: 'reasoning', summary: [], encrypted_content: 'gAAA-partial' } },
        { type: 'response.reasoning_text.delta', item_id: 'rs_1', output_index: 0, content_index: 0, delta: 'think' },
        { type: 'response.reasoning_summary_part.added', item_id: 'rs_1', output_index: 0, summary_index: 1, part: { type: 'summary_text', text: '' } },
        { type: 'response.reasoning_summary_text.delta', item_id: 'rs_1', output_index: 0, summary_index: 1, delta: 'more' },
        { type: 'response.output_item.done', output_index: 0, item: { id: 'rs_1', type: 'reasoning', summary: [], encrypted_content: 'gAAA-full' } },
      ]),
    );
    expect(events).toEqual([
      { type: 'reasoning-start', id: 'rs_1', encrypted: 'gAAA-partial' },
      { type: 'reasoning-delta', id: 'rs_1', delta: 'think' },
      { type: 'reasoning-delta', id: 'rs_1', delta: '\n\n' },
      { type: 'reasoning-delta', id: 'rs_1', delta: 'more' },
      { type: 'reasoning-end', id: 'rs_1', encrypted: 'gAAA-full' },
      { type: 'stream-end', terminalFrameSeen: false },
    ]);
  });

  it('maps a flat SDK-style error event and ignores a trailing [DONE]', async () => {
    const text = `${frame([{ type: 'error', code: 'server_error', message: 'boom', param: null }])}data: [DONE]\n\n`;
    const events = await decodeText(text);
    expect(events[0]).toMatchObject({ type: 'error', error: { kind: 'server', message: 'boom', retryable: true } });
    expect(events.at(-1)).toEqual({ type: 'stream-end', terminalFrameSeen: false });
  });

  it('accepts a last record that lacks its closing blank line, but drops one cut inside a line', async () => {
    const completed = JSON.stringify({ type: 'response.completed', response: { status: 'completed' } });
    expect((await decodeText(`data: ${completed}\n`)).at(-1)).toEqual({ type: 'stream-end', terminalFrameSeen: true });
    const cut = await decodeText(`data: ${completed.slice(0, 30)}`);
    expect(cut).toEqual([{ type: 'stream-end', terminalFrameSeen: false }]);
  });

  it('propagates a failure of the body stream itself (transport), after the events decoded so far', async () => {
    const chunk = new TextEncoder().encode(frame([{ type: 'response.created', response: { id: 'resp_1' } }]));
    let sent = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (!sent) {
          sent = true;
          controller.enqueue(chunk);
        } else controller.error(new TypeError('terminated'));
      },
    });
    const seen: DecodedStreamEvent[] = [];
    await expect(async () => {
      for await (const event of decodeResponsesStream(body)) seen.push(event);
    }).rejects.toThrow('terminated');
    expect(seen).toEqual([{ type: 'response-metadata', responseId: 'resp_1' }]);
  });
});
