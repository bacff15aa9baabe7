import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TurnError, type TurnEvent } from '@turnguard/core';
import { collectEvents, frameRecordedLines, readRecordedStreams, streamOfChunks } from '@turnguard/testkit';
import { decodeResponsesStream } from './responses-stream-decoder.js';
import { encodeResponsesStream } from './responses-stream-encoder.js';

type JsonObject = Record<string, any>;

const BASE_URL = 'https://upstream.test/v1';
let nextBody: Uint8Array = new Uint8Array();
const server = setupServer(
  // The body is served as a stream: with a buffered body, msw never settles the
  // SDK's abort after an in-stream error and the test hangs.
  http.post(`${BASE_URL}/responses`, () => new HttpResponse(streamOfChunks([nextBody]), { headers: { 'content-type': 'text/event-stream' } })),
);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());

/** What openai-node's `responses.stream(...).finalResponse()` makes of these bytes. */
async function parseWithOfficialSdk(bytes: Uint8Array): Promise<JsonObject> {
  nextBody = bytes;
  const client = new OpenAI({ baseURL: BASE_URL, apiKey: 'test-key', maxRetries: 0 });
  return (await client.responses.stream({ model: 'test-model', input: 'x' }).finalResponse()) as unknown as JsonObject;
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

async function* turnEventsOf(bytes: Uint8Array): AsyncGenerator<TurnEvent> {
  for await (const event of decodeResponsesStream(streamOfChunks([bytes]))) if (event.type !== 'stream-end') yield event;
}

async function* iterate(events: TurnEvent[]): AsyncGenerator<TurnEvent> {
  yield* events;
}

/** The parts of a final response the host relies on: items (text, reasoning, tool calls), status, usage. */
function projectResponse(response: JsonObject) {
  const items = (response.output as JsonObject[]).flatMap((item): JsonObject[] => {
    switch (item.type) {
      case 'message':
        return [{ type: item.type, id: item.id, role: item.role, status: item.status, text: item.content.map((part: JsonObject) => part.text).join('') }];
      case 'reasoning':
        return [{ type: item.type, id: item.id, summary: item.summary.map((part: JsonObject) => part.text), encrypted_content: item.encrypted_content }];
      case 'function_call':
        return [{ type: item.type, id: item.id, call_id: item.call_id, name: item.name, arguments: item.arguments, status: item.status }];
      case 'custom_tool_call':
        return [{ type: item.type, id: item.id, call_id: item.call_id, name: item.name, input: item.input, status: item.status }];
      default:
        return []; // hosted-tool items (web_search_call) have no neutral event: not re-encoded (README)
    }
  });
  const usage = response.usage;
  return {
    status: response.status,
    incomplete_details: response.incomplete_details ?? null,
    output_text: response.output_text,
    items,
    usage:
      usage == null
        ? undefined
        : {
            input_tokens: usage.input_tokens,
            cached_tokens: usage.input_tokens_details?.cached_tokens,
            output_tokens: usage.output_tokens,
            reasoning_tokens: usage.output_tokens_details?.reasoning_tokens,
            total_tokens: usage.total_tokens,
          },
  };
}

describe('encodeResponsesStream → official openai SDK (R7.3)', () => {
  for (const { file: name, lines } of readRecordedStreams('responses')) {
    it(`${name}: the SDK's final response of encode(decode(recording)) matches the recording's`, async () => {
      const original = new TextEncoder().encode(frameRecordedLines('responses', lines));
      const reencoded = await readAll(encodeResponsesStream(turnEventsOf(original)));
      const recorded = lines.map((line) => JSON.parse(line) as JsonObject);

      if (recorded.some((event) => event.type === 'error')) {
        // The SDK raises the in-stream error; it must raise the same one for our bytes.
        const describe = (error: any) => ({ name: error.constructor.name, code: error.code, type: error.type, message: error.message });
        const expected = await parseWithOfficialSdk(original).then(() => undefined, describe);
        const actual = await parseWithOfficialSdk(reencoded).then(() => undefined, describe);
        expect(expected).toMatchObject({ name: 'APIError', code: 'insufficient_quota' });
        expect(actual).toEqual(expected);
        return;
      }
      const terminal = recorded.find((event) => /^response\.(completed|incomplete|failed)$/.test(event.type))!;
      // output_text as the SDK derives it, computed from the recording's own message items (not from the bytes under test).
      const recordedText = (terminal.response.output as JsonObject[])
        .filter((item) => item.type === 'message')
        .flatMap((item) => item.content as JsonObject[])
        .filter((part) => part.type === 'output_text')
        .map((part) => part.text)
        .join('');
      const fromRecording = projectResponse({ ...terminal.response, output_text: recordedText });
      const sdkOnReencoded = projectResponse(await parseWithOfficialSdk(reencoded));
      expect(sdkOnReencoded).toEqual(fromRecording);
      // openai-node requires `response.created` first; `openai-custom-tool.1` was recorded without it.
      if (recorded[0]?.type === 'response.created') {
        expect(sdkOnReencoded).toEqual(projectResponse(await parseWithOfficialSdk(original)));
      }
    });
  }

  it('frames every event as `event:`/`data:` with increasing sequence numbers and no [DONE]', async () => {
    const text = new TextDecoder().decode(
      await readAll(
        encodeResponsesStream(
          iterate([
            { type: 'text-start', id: 'msg_1' },
            { type: 'text-delta', id: 'msg_1', delta: 'Hi' },
            { type: 'finish', finishReason: { unified: 'stop', raw: 'completed' } },
          ]),
        ),
      ),
    );
    const records = text.split('\n\n').filter((record) => record !== '');
    const payloads = records.map((record) => {
      const [eventLine, dataLine] = record.split('\n');
      const payload = JSON.parse(dataLine!.slice('data: '.length)) as JsonObject;
      expect(eventLine).toBe(`event: ${payload.type}`);
      return payload;
    });
    expect(payloads.map((payload) => payload.sequence_number)).toEqual(payloads.map((_, index) => index));
    expect(payloads.map((payload) => payload.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(text).not.toContain('[DONE]');
  });

  it('R5.3: forwarded usage carries only known counts, never an invented 0', async () => {
    const bytes = await readAll(
      encodeResponsesStream(
        iterate([
          {
            type: 'usage',
            usage: { inputTokens: 12, cachedInputTokens: undefined, cacheCreationInputTokens: undefined, outputTokens: 30, reasoningTokens: undefined, totalTokens: undefined },
          },
          { type: 'finish', finishReason: { unified: 'length', raw: 'max_output_tokens' } },
        ]),
      ),
    );
    const final = await parseWithOfficialSdk(bytes);
    expect(final.usage).toEqual({ input_tokens: 12, output_tokens: 30 });
    expect(final.status).toBe('incomplete');
    expect(final.incomplete_details).toEqual({ reason: 'max_output_tokens' });
  });

  it('R8.3: an error with no finish still ends with the error event and response.failed', async () => {
    const error = new TurnError({ kind: 'prompt_too_long', message: 'Your input exceeds the context window' });
    const text = new TextDecoder().decode(await readAll(encodeResponsesStream(iterate([{ type: 'error', error }]))));
    const types = [...text.matchAll(/^event: (.+)$/gm)].map((match) => match[1]);
    expect(types).toEqual(['response.created', 'response.in_progress', 'error', 'response.failed']);
    expect(text).toContain('"code":"context_length_exceeded"');
    await expect(parseWithOfficialSdk(new TextEncoder().encode(text))).rejects.toMatchObject({
      code: 'context_length_exceeded',
      message: 'Your input exceeds the context window',
    });
  });

  it('R8.3: a cut stream keeps its STREAM_CUT code, so a host can tell it from an upstream server error', async () => {
    const error = new TurnError({ kind: 'stream_cut', message: 'The stream was cut after output had reached the client.' });
    const text = new TextDecoder().decode(await readAll(encodeResponsesStream(iterate([{ type: 'error', error }]))));
    await expect(parseWithOfficialSdk(new TextEncoder().encode(text))).rejects.toMatchObject({ code: 'STREAM_CUT' });
  });

  it('an unfinished tool call is closed before the terminal frame so the SDK sees complete items', async () => {
    const final = await parseWithOfficialSdk(
      await readAll(
        encodeResponsesStream(
          iterate([
            { type: 'tool-call-start', toolCallId: 'call_1', toolName: 'weather' },
            { type: 'tool-call-delta', toolCallId: 'call_1', delta: '{"city":' },
            { type: 'finish', finishReason: { unified: 'length', raw: 'max_output_tokens' } },
          ]),
        ),
      ),
    );
    expect(final.output).toMatchObject([
      { id: 'fc_call_1', type: 'function_call', status: 'completed', call_id: 'call_1', name: 'weather', arguments: '{"city":' },
    ]);
  });
});
