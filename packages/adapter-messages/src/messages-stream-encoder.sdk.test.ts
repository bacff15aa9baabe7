import Anthropic from '@anthropic-ai/sdk';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DecodedStreamEvent, TurnEvent } from '@turnguard/core';
import { decodeMessagesStream } from './messages-stream-decoder.js';
import { encodeMessagesStream } from './messages-stream-encoder.js';
import { collectEvents, frameRecordedLines, readRecordedStreams, streamOfText } from '@turnguard/testkit';

/**
 * R7.3: what the encoder writes must be what @anthropic-ai/sdk reads. Each
 * recording is served through msw to the real SDK twice — as recorded, and
 * after decode → encode — and the two final messages are compared.
 */
const BASE_URL = 'https://upstream.test';
let nextBody: () => ReadableStream<Uint8Array>;
const server = setupServer(
  http.post(`${BASE_URL}/v1/messages`, () => new HttpResponse(nextBody(), { headers: { 'content-type': 'text/event-stream' } })),
);
// The SDK keeps the global fetch it finds when the client is built, so build it after msw patched it.
let client: Anthropic;
beforeAll(() => {
  server.listen({ onUnhandledRequest: 'error' });
  client = new Anthropic({ baseURL: BASE_URL, apiKey: 'test-key', maxRetries: 0 });
});
afterAll(() => server.close());

async function finalMessageOf(body: () => ReadableStream<Uint8Array>) {
  nextBody = body;
  return client.messages.stream({ model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
}

async function* withoutStreamEnd(events: AsyncIterable<DecodedStreamEvent>): AsyncGenerator<TurnEvent> {
  for await (const event of events) if (event.type !== 'stream-end') yield event;
}

function reencode(wire: string): () => ReadableStream<Uint8Array> {
  return () => encodeMessagesStream(withoutStreamEnd(decodeMessagesStream(streamOfText(wire))));
}

function comparable(message: Anthropic.Message) {
  const { input_tokens, output_tokens, cache_read_input_tokens, cache_creation_input_tokens } = message.usage;
  return {
    id: message.id,
    model: message.model,
    role: message.role,
    content: JSON.parse(JSON.stringify(message.content)) as unknown,
    stop_reason: message.stop_reason,
    usage: { input_tokens, output_tokens, cache_read_input_tokens, cache_creation_input_tokens },
  };
}

describe('encoded Messages streams parse in @anthropic-ai/sdk like the recordings (R7.3)', () => {
  for (const recording of readRecordedStreams('messages')) {
    it(`${recording.name}: same final message after decode → encode`, async () => {
      let baselineLines = recording.lines;
      if (recording.name === 'duplicate-message-start') {
        // The SDK itself rejects the repeated message_start ("Unexpected event order",
        // src/lib/MessageStream.ts); our decoder drops the repeat, so the baseline is the
        // recording without it.
        await expect(finalMessageOf(() => streamOfText(frameRecordedLines('messages', recording.lines)))).rejects.toThrow(/Unexpected event order/);
        baselineLines = recording.lines.filter((line, index) => index !== 1);
      }
      const baseline = await finalMessageOf(() => streamOfText(frameRecordedLines('messages', baselineLines)));
      const reencoded = await finalMessageOf(reencode(frameRecordedLines('messages', recording.lines)));
      expect(comparable(reencoded)).toEqual(comparable(baseline));
      expect(baseline.content.length + (baseline.stop_reason === 'refusal' ? 1 : 0)).toBeGreaterThan(0);
    });
  }

  it('relays an in-stream error so the SDK raises it with its type', async () => {
    const events: TurnEvent[] = [
      { type: 'response-metadata', responseId: 'msg_1', model: 'claude-test' },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'partial' },
    ];
    const wire = `event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n`;
    const decodedError = (await collectEvents(decodeMessagesStream(streamOfText(wire)))).find((event) => event.type === 'error');
    expect(decodedError).toBeDefined();
    async function* source(): AsyncGenerator<TurnEvent> {
      yield* events;
      yield decodedError as TurnEvent;
    }
    nextBody = () => encodeMessagesStream(source());
    await expect(
      client.messages.stream({ model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }).finalMessage(),
    ).rejects.toMatchObject({ type: 'overloaded_error' });
  });
});
