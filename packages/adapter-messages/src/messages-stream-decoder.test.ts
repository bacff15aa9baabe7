import { describe, expect, it } from 'vitest';
import { TurnError } from '@turnguard/core';
import { decodeMessagesStream, MessagesStreamDecoder } from './messages-stream-decoder.js';
import { collectEvents, streamOfText } from '@turnguard/testkit';

function sse(type: string, data: unknown): string {
  return `event: ${type}\ndata: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}
const start = (id = 'msg_1') =>
  sse('message_start', { type: 'message_start', message: { id, model: 'claude-x', usage: { input_tokens: 10, output_tokens: 1 } } });
const stopFrames = (reason = 'end_turn', usage: object = { output_tokens: 5 }) =>
  sse('message_delta', { type: 'message_delta', delta: { stop_reason: reason, stop_sequence: null }, usage }) + sse('message_stop', { type: 'message_stop' });

async function decode(wire: string, cuts: number[] = []) {
  return collectEvents(decodeMessagesStream(streamOfText(wire, cuts)));
}

describe('MessagesStreamDecoder (R7.2)', () => {
  it('decodes thinking with its signature set (not appended) and redacted thinking as encrypted', async () => {
    const wire =
      start() +
      sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }) +
      sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'hmm' } }) +
      sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'SIG-A' } }) +
      sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'SIG-B' } }) +
      sse('content_block_stop', { type: 'content_block_stop', index: 0 }) +
      sse('content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'redacted_thinking', data: 'opaque' } }) +
      sse('content_block_stop', { type: 'content_block_stop', index: 1 }) +
      stopFrames();
    const events = await decode(wire);
    expect(events.filter((event) => event.type.startsWith('reasoning'))).toEqual([
      { type: 'reasoning-start', id: '0' },
      { type: 'reasoning-delta', id: '0', delta: 'hmm' },
      { type: 'reasoning-end', id: '0', signature: 'SIG-B' },
      { type: 'reasoning-start', id: '1', redacted: true, encrypted: 'opaque' },
      { type: 'reasoning-end', id: '1', encrypted: 'opaque' },
    ]);
  });

  it('emits tool-call start/delta/end with the joined raw argument text', async () => {
    const wire =
      start() +
      sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'get', input: {} } }) +
      sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"a":' } }) +
      sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '1}' } }) +
      sse('content_block_stop', { type: 'content_block_stop', index: 0 }) +
      stopFrames('tool_use');
    const events = await decode(wire);
    expect(events.filter((event) => event.type.startsWith('tool-call'))).toEqual([
      { type: 'tool-call-start', toolCallId: 'toolu_1', toolName: 'get' },
      { type: 'tool-call-delta', toolCallId: 'toolu_1', delta: '{"a":' },
      { type: 'tool-call-delta', toolCallId: 'toolu_1', delta: '1}' },
      { type: 'tool-call-end', toolCallId: 'toolu_1', toolName: 'get', input: '{"a":1}' },
    ]);
    expect(events.at(-2)).toEqual({ type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_use' } });
  });

  it('R4.1: reports a server-side tool call it does not model as a tool call seen, so no recovery follows a cut', async () => {
    const wire =
      start() +
      sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} } });
    const events = await collectEvents(decodeMessagesStream(streamOfText(wire)));
    expect(events.some((event) => event.type === 'tool-call-start')).toBe(false);
    expect(events.at(-1)).toEqual({ type: 'stream-end', terminalFrameSeen: false, toolCallSeen: true });
  });

  it('overwrites cumulative usage from message_delta, never adds, and keeps unknown counts undefined (R5.1)', async () => {
    const events = await decode(start() + stopFrames('end_turn', { input_tokens: 12, output_tokens: 7, cache_read_input_tokens: 3 }));
    const usages = events.flatMap((event) => (event.type === 'usage' ? [event.usage] : []));
    expect(usages).toEqual([
      { inputTokens: 10, outputTokens: 1, cachedInputTokens: undefined, cacheCreationInputTokens: undefined, reasoningTokens: undefined, totalTokens: 11 },
      { inputTokens: 12, outputTokens: 7, cachedInputTokens: 3, cacheCreationInputTokens: undefined, reasoningTokens: undefined, totalTokens: 22 },
    ]);
  });

  it('turns an `event: error` into a classified, typed error event (overloaded retryable, api_error server)', async () => {
    const overloaded = await decode(start() + sse('error', { type: 'error', error: { details: null, type: 'overloaded_error', message: 'Overloaded' } }));
    const error = overloaded.find((event) => event.type === 'error');
    expect(error?.type === 'error' && TurnError.isInstance(error.error)).toBe(true);
    expect(error?.type === 'error' && [error.error.kind, error.error.retryable, error.error.status, error.error.details['inStream']]).toEqual([
      'overloaded',
      true,
      undefined,
      true,
    ]);
    expect(overloaded.at(-1)).toEqual({ type: 'stream-end', terminalFrameSeen: false });
    const apiError = await decode(sse('error', { type: 'error', error: { type: 'api_error', message: 'Internal server error' } }));
    expect(apiError[0]?.type === 'error' && apiError[0].error.kind).toBe('server');
  });

  it('turns an unparseable chunk into a typed error and keeps decoding', async () => {
    const wire = start() + sse('content_block_delta', '{"type":"content_block_delta",') + stopFrames();
    const events = await decode(wire);
    const error = events.find((event) => event.type === 'error');
    expect(error?.type === 'error' && [error.error.kind, error.error.code]).toEqual(['server', 'MALFORMED_CHUNK']);
    expect(events.at(-1)).toEqual({ type: 'stream-end', terminalFrameSeen: true });
  });

  it('ignores pings, comments and unknown events', async () => {
    const wire = ': keep-alive\n\n' + start() + sse('ping', { type: 'ping' }) + sse('brand_new_event', { type: 'brand_new_event', x: 1 }) + stopFrames();
    const events = await decode(wire);
    expect(events.map((event) => event.type)).toEqual(['response-metadata', 'usage', 'usage', 'finish', 'stream-end']);
  });

  it('ignores a repeated message_start of the open message, but fails a different one spliced in', async () => {
    const text =
      sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }) +
      sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } });
    const repeated = await decode(start('msg_1') + text + start('msg_1') + sse('content_block_stop', { type: 'content_block_stop', index: 0 }) + stopFrames());
    expect(repeated.filter((event) => event.type === 'response-metadata')).toHaveLength(1);
    expect(repeated.filter((event) => event.type === 'text-end')).toHaveLength(1);
    expect(repeated.at(-1)).toEqual({ type: 'stream-end', terminalFrameSeen: true });

    const spliced = await decode(start('msg_1') + text + start('msg_2') + stopFrames());
    expect(spliced.filter((event) => event.type === 'error')).toHaveLength(1);
    expect(spliced.some((event) => event.type === 'finish')).toBe(false);
    expect(spliced.at(-1)).toEqual({ type: 'stream-end', terminalFrameSeen: false });
  });

  it('the message_delta carrying a stop_reason is the terminal frame; message_stop alone is not (R8.12, R8.13)', async () => {
    const noStopReason = await decode(start() + sse('message_stop', { type: 'message_stop' }));
    expect(noStopReason.some((event) => event.type === 'finish')).toBe(false);
    expect(noStopReason.at(-1)).toEqual({ type: 'stream-end', terminalFrameSeen: false });
    // The answer is complete at its stop_reason: a body that ends before message_stop is not a cut.
    const noStop = await decode(start() + sse('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } }));
    expect(noStop.filter((event) => event.type === 'finish')).toEqual([{ type: 'finish', finishReason: { unified: 'stop', raw: 'end_turn' } }]);
    expect(noStop.at(-1)).toEqual({ type: 'stream-end', terminalFrameSeen: true });
  });

  it('closes blocks left open at the stop_reason and ignores anything after the terminal frame, message_stop included', () => {
    const decoder = new MessagesStreamDecoder();
    decoder.decodeRecord('content_block_start', JSON.stringify({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: 'a' } }));
    expect(decoder.decodeRecord('message_delta', JSON.stringify({ type: 'message_delta', delta: { stop_reason: 'max_tokens' }, usage: { output_tokens: 9 } }))).toEqual([
      { type: 'text-end', id: '0' },
      { type: 'usage', usage: expect.objectContaining({ outputTokens: 9 }) },
      { type: 'finish', finishReason: { unified: 'length', raw: 'max_tokens' } },
    ]);
    expect(decoder.decodeRecord('message_stop', '{"type":"message_stop"}')).toEqual([]);
    expect(decoder.decodeRecord('message_delta', JSON.stringify({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 12 } }))).toEqual([]);
    expect(decoder.decodeRecord('content_block_start', JSON.stringify({ type: 'content_block_start', index: 1, content_block: { type: 'text', text: 'late' } }))).toEqual([]);
  });

  it('a message_stop with no stop_reason before it still closes the blocks a sloppy upstream left open', () => {
    const decoder = new MessagesStreamDecoder();
    decoder.decodeRecord('content_block_start', JSON.stringify({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: 'a' } }));
    expect(decoder.decodeRecord('message_stop', '{"type":"message_stop"}')).toEqual([{ type: 'text-end', id: '0' }]);
  });

  it('propagates a failure of the body stream itself (transport), after the events decoded so far', async () => {
    const bytes = new TextEncoder().encode(start());
    let sent = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (!sent) {
          sent = true;
          controller.enqueue(bytes);
        } else controller.error(new TypeError('terminated'));
      },
    });
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const event of decodeMessagesStream(body)) seen.push(event.type);
      })(),
    ).rejects.toThrow('terminated');
    expect(seen).toEqual(['response-metadata', 'usage']);
  });

  it('cancels the upstream body when the consumer stops early', async () => {
    let cancelled = false;
    const bytes = new TextEncoder().encode(start());
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(bytes);
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const event of decodeMessagesStream(body)) {
      if (event.type === 'response-metadata') break;
    }
    expect(cancelled).toBe(true);
  });
});
