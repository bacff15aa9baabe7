import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import OpenAI from 'openai';
import { Stream } from 'openai/streaming';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TurnError, type TurnEvent } from '@turnguard/core';
import { decodeChatStream } from './chat-stream-decoder.js';
import { ChatChunkEncoder, encodeChatStream } from './chat-stream-encoder.js';
import { frameRecordedLines, readRecordedStreams, streamOfChunks } from '@turnguard/testkit';
import { readRecordingContent } from './chat-fixture-replay.test-helper.js';

const BASE_URL = 'http://upstream.test/v1';
let nextBody: Uint8Array<ArrayBuffer> = new Uint8Array();
const server = setupServer(
  http.post(`${BASE_URL}/chat/completions`, () =>
    new HttpResponse(nextBody, { headers: { 'content-type': 'text/event-stream' } }),
  ),
);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());

// The SDK keeps the `fetch` it sees at construction; defer to the global one msw patches in `listen()`.
const client = new OpenAI({ baseURL: BASE_URL, apiKey: 'test-key', maxRetries: 0, fetch: (url, init) => globalThis.fetch(url, init) });
const params = { model: 'm', messages: [{ role: 'user' as const, content: 'hi' }], stream: true as const };

async function readAllBytes(stream: ReadableStream<Uint8Array>): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

async function finalCompletionOf(bytes: Uint8Array<ArrayBuffer>) {
  nextBody = bytes;
  return client.chat.completions.stream(params).finalChatCompletion();
}

/** Reasoning as an SDK user reads it: joined `delta.reasoning_content ?? delta.reasoning` of `create({stream:true})` chunks. */
async function streamedReasoningOf(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  nextBody = bytes;
  let reasoning = '';
  for await (const chunk of await client.chat.completions.create(params)) {
    const delta = chunk.choices[0]?.delta as Record<string, unknown> | undefined;
    const piece = delta?.reasoning_content ?? delta?.reasoning;
    if (typeof piece === 'string') reasoning += piece;
  }
  return reasoning;
}

async function reencode(bytes: Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
  const events = decodeChatStream(streamOfChunks([bytes]));
  const turnEvents = (async function* () {
    for await (const event of events) if (event.type !== 'stream-end') yield event;
  })();
  return readAllBytes(encodeChatStream(turnEvents));
}

async function* fromArray(events: TurnEvent[]): AsyncGenerator<TurnEvent> {
  yield* events;
}

describe('encodeChatStream read back by the official openai SDK (R7.3)', () => {
  for (const fixture of readRecordedStreams('chat')) {
    it(`${fixture.file}: finalChatCompletion of encode(decode(recording)) matches the recording`, async () => {
      const original = new TextEncoder().encode(frameRecordedLines('chat', fixture.lines));
      const recording = readRecordingContent(fixture.lines);
      const reencoded = await reencode(original);
      const fromOriginal = await finalCompletionOf(original);
      const fromReencoded = await finalCompletionOf(reencoded);

      const choice = fromReencoded.choices[0]!;
      // xAI changes `created` mid-stream (xai-tool-call.chunks.txt) and the SDK keeps the last; the decoder reports the first.
      const firstChunk = JSON.parse(fixture.lines[0]!) as { created: number };
      expect(fromReencoded).toMatchObject({ id: fromOriginal.id, model: fromOriginal.model, created: firstChunk.created });
      expect(choice.finish_reason).toBe(fromOriginal.choices[0]!.finish_reason);
      expect(choice.message.role).toBe('assistant');
      expect(choice.message.content ?? '').toBe(fromOriginal.choices[0]!.message.content ?? '');
      const calls = (choice.message.tool_calls ?? []).map((call) => ({ name: call.function.name, input: call.function.arguments, id: call.id }));
      // Mistral sends a call without `index`, which the SDK cannot place (tool_calls[undefined]); compare with the recording there.
      expect(calls.map(({ name, input }) => ({ name, input }))).toEqual([...recording.toolInputs.values()]);
      const originalCalls = fromOriginal.choices[0]!.message.tool_calls ?? [];
      if (originalCalls.length > 0) {
        expect(calls.map((call) => call.id)).toEqual(originalCalls.map((call) => call.id));
      }
      expect(await streamedReasoningOf(reencoded)).toBe(await streamedReasoningOf(original));

      const raw = recording.usage as Record<string, any>;
      expect(fromReencoded.usage).toMatchObject({ prompt_tokens: raw.prompt_tokens, completion_tokens: raw.completion_tokens, total_tokens: raw.total_tokens });
    });
  }

  it('R5.3: the usage chunk carries only known counts, never an invented 0', async () => {
    const bytes = await readAllBytes(
      encodeChatStream(
        fromArray([
          { type: 'text-delta', id: 't', delta: 'hi' },
          { type: 'usage', usage: { inputTokens: 10, cachedInputTokens: undefined, cacheCreationInputTokens: undefined, outputTokens: undefined, reasoningTokens: 3, totalTokens: undefined } },
          { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' } },
        ]),
      ),
    );
    const completion = await finalCompletionOf(bytes);
    expect(completion.usage).toEqual({ prompt_tokens: 10, completion_tokens_details: { reasoning_tokens: 3 } });
    expect(completion.choices[0]?.message.content).toBe('hi');
  });

  it('R8.3: without a finish event no finish_reason is invented, so the SDK reports the cut', async () => {
    const bytes = await readAllBytes(encodeChatStream(fromArray([{ type: 'text-delta', id: 't', delta: 'partial' }])));
    expect(new TextDecoder().decode(bytes).endsWith('data: [DONE]\n\n')).toBe(true);
    await expect(finalCompletionOf(bytes)).rejects.toThrow('missing finish_reason for choice 0');
  });

  it('R8.3: an error event becomes an OpenAI error payload the SDK raises, then [DONE]', async () => {
    const error = new TurnError({ kind: 'overloaded', message: 'upstream overloaded' });
    const bytes = await readAllBytes(encodeChatStream(fromArray([{ type: 'text-delta', id: 't', delta: 'x' }, { type: 'error', error }])));
    const text = new TextDecoder().decode(bytes);
    // OpenAI's own error.type vocabulary, the same body the gateway answers as JSON; turnguard's code stays.
    expect(text).toContain('"error":{"message":"upstream overloaded","type":"server_error","param":null,"code":"OVERLOADED"}');
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    // The SDK's own SSE reader (openai/streaming), fed directly: it raises any payload with a truthy `error`.
    const stream = Stream.fromSSEResponse<{ choices: Array<{ delta: { content?: string } }> }>(new Response(bytes as Uint8Array<ArrayBuffer>), new AbortController());
    const received: string[] = [];
    let raised: unknown;
    try {
      for await (const chunk of stream) received.push(chunk.choices[0]?.delta.content ?? '');
    } catch (error) {
      raised = error;
    }
    expect(raised).toBeInstanceOf(OpenAI.APIError);
    expect(received).toEqual(['x']);
  });

  it('R8.13: after the error chunk only [DONE] follows — no usage chunk, even with usage known', () => {
    const encoder = new ChatChunkEncoder();
    encoder.encode({ type: 'text-delta', id: 't', delta: 'x' });
    encoder.encode({ type: 'usage', usage: { inputTokens: 3, outputTokens: 1, cachedInputTokens: undefined, cacheCreationInputTokens: undefined, reasoningTokens: undefined, totalTokens: 4 } });
    expect(encoder.encode({ type: 'error', error: new TurnError({ kind: 'stream_cut', message: 'cut' }) })[0]).toMatch(/^data: \{"error":/);
    expect(encoder.finish()).toEqual(['data: [DONE]\n\n']);
  });

  it('a failing event source ends the stream with an error payload and [DONE]', async () => {
    const failing = (async function* (): AsyncGenerator<TurnEvent> {
      yield { type: 'text-delta', id: 't', delta: 'x' };
      throw new TurnError({ kind: 'transport', message: 'socket closed' });
    })();
    const text = new TextDecoder().decode(await readAllBytes(encodeChatStream(failing)));
    expect(text).toContain('"code":"TRANSPORT"');
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  it('a tool call given only by its end event still carries its whole input', async () => {
    const bytes = await readAllBytes(
      encodeChatStream(
        fromArray([
          { type: 'tool-call-end', toolCallId: 'call_9', toolName: 'weather', input: '{"city":"Oslo"}' },
          { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' } },
        ]),
      ),
    );
    const completion = await finalCompletionOf(bytes);
    expect(completion.choices[0]?.message.tool_calls).toEqual([{ id: 'call_9', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }]);
  });
});
