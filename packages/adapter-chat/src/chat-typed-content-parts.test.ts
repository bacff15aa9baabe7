import type { ChatCompletionCreateParams } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import type { DecodedStreamEvent } from '@turnguard/core';
import { collectEvents, streamOfChunks } from '@turnguard/testkit';
import { decodeChatStream } from './chat-stream-decoder.js';
import { encodeChatStream } from './chat-stream-encoder.js';
import { convertToChatRequest } from './convert-to-chat-request.js';
import { parseChatRequest } from './parse-chat-request.js';

/**
 * R7.1, R7.2: Chat `content` as an array of typed parts, as
 * Mistral's reasoning (Magistral) models stream it — `{type:"thinking",
 * thinking:[{type:"text", text}]}` then `{type:"text", text}` (docs.mistral.ai,
 * "Reasoning"). A hand-made stream in that shape: 60 reasoning characters, 9
 * text characters, each split over several deltas.
 */
const REASONING = 'The user greets me. A short friendly greeting back is right.';
const TEXT = 'Hi there!';

function chunk(delta: Record<string, unknown>, finishReason: string | null = null): string {
  const payload = { id: 'cmpl-1', object: 'chat.completion.chunk', created: 1, model: 'magistral-small-2509', choices: [{ index: 0, delta, finish_reason: finishReason }] };
  return `data: ${JSON.stringify(payload)}\n\n`;
}

const thinking = (text: string) => ({ content: [{ type: 'thinking', thinking: [{ type: 'text', text }] }] });
const text = (value: string) => ({ content: [{ type: 'text', text: value }] });

const MISTRAL_STREAM = [
  chunk({ role: 'assistant', content: '' }),
  chunk(thinking(REASONING.slice(0, 20))),
  chunk(thinking(REASONING.slice(20, 41))),
  chunk({ content: [{ type: 'thinking', thinking: [{ type: 'text', text: REASONING.slice(41, 50) }, { type: 'text', text: REASONING.slice(50) }] }] }),
  chunk(text(TEXT.slice(0, 3))),
  chunk({ content: [{ type: 'text', text: TEXT.slice(3, 6) }, { type: 'text', text: TEXT.slice(6) }] }),
  chunk({ content: '' }, 'stop'),
  'data: [DONE]\n\n',
].join('');

function joined(events: DecodedStreamEvent[], type: 'text-delta' | 'reasoning-delta'): string {
  return events.map((event) => (event.type === type ? event.delta : '')).join('');
}

describe('Chat typed content parts (R7.2)', () => {
  it('decodes the text and the reasoning of a typed-parts stream, in order, as one block each', async () => {
    const events = await collectEvents(decodeChatStream(streamOfChunks([MISTRAL_STREAM])));
    expect(joined(events, 'reasoning-delta')).toBe(REASONING);
    expect(REASONING).toHaveLength(60);
    expect(joined(events, 'text-delta')).toBe(TEXT);
    const blocks = events.filter((event) => event.type !== 'stream-end' && (event.type.endsWith('-start') || event.type.endsWith('-end'))).map((event) => event.type);
    expect(blocks).toEqual(['reasoning-start', 'reasoning-end', 'text-start', 'text-end']);
    expect(events.at(-1)).toEqual({ type: 'stream-end', terminalFrameSeen: true });
  });

  it('decodes the same content split at every byte', async () => {
    const bytes = new TextEncoder().encode(MISTRAL_STREAM);
    for (let cut = 1; cut < bytes.length; cut += 1) {
      const events = await collectEvents(decodeChatStream(streamOfChunks([bytes.subarray(0, cut), bytes.subarray(cut)])));
      expect(joined(events, 'reasoning-delta'), `cut ${cut}`).toBe(REASONING);
      expect(joined(events, 'text-delta'), `cut ${cut}`).toBe(TEXT);
    }
  });

  it('re-encodes the decoded stream as Chat SSE that decodes to the same text and reasoning', async () => {
    const decoded = decodeChatStream(streamOfChunks([MISTRAL_STREAM]));
    // `stream-end` is the decoder's own closing item, not a TurnEvent the encoder takes.
    const turnEvents = (async function* () {
      for await (const event of decoded) if (event.type !== 'stream-end') yield event;
    })();
    const reEncoded = await new Response(encodeChatStream(turnEvents)).text();
    const events = await collectEvents(decodeChatStream(streamOfChunks([reEncoded])));
    expect(joined(events, 'reasoning-delta')).toBe(REASONING);
    expect(joined(events, 'text-delta')).toBe(TEXT);
  });

  it('ignores part types it does not model without dropping the others', async () => {
    const stream = chunk({ role: 'assistant' }) + chunk({ content: [{ type: 'image_url', image_url: { url: 'x' } }, { type: 'text', text: 'ok' }] }, 'stop');
    const events = await collectEvents(decodeChatStream(streamOfChunks([stream])));
    expect(joined(events, 'text-delta')).toBe('ok');
  });
});

describe('Chat typed thinking parts in request messages (R7.1)', () => {
  const request = {
    model: 'magistral-small-2509',
    stream: true,
    messages: [
      { role: 'user', content: 'hello' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: [{ type: 'text', text: 'first ' }, { type: 'text', text: 'second' }] },
          { type: 'text', text: TEXT },
        ],
      },
      { role: 'user', content: 'and again' },
    ],
  } as unknown as ChatCompletionCreateParams;

  it('parses a thinking part as reasoning and a text part as text', () => {
    const { prompt } = parseChatRequest(structuredClone(request));
    const assistant = prompt.messages[1]!;
    expect(assistant.content.map((part) => [part.type, 'text' in part ? part.text : undefined])).toEqual([
      ['reasoning', 'first second'],
      ['text', TEXT],
    ]);
  });

  it('buildRequest(parseRequest(x)) deep-equals x, with the thinking part back in content (not in reasoning_content)', () => {
    const { prompt, settings } = parseChatRequest(structuredClone(request));
    expect(convertToChatRequest(prompt, settings)).toEqual(request);
  });

  it('an edited reasoning text goes back as one thinking text chunk in place', () => {
    const { prompt, settings } = parseChatRequest(structuredClone(request));
    const part = prompt.messages[1]!.content[0]!;
    if (part.type !== 'reasoning') throw new Error('expected reasoning');
    part.text = 'edited';
    const native = convertToChatRequest(prompt, settings) as unknown as { messages: Array<Record<string, unknown>> };
    expect(native.messages[1]).toEqual({
      role: 'assistant',
      content: [{ type: 'thinking', thinking: [{ type: 'text', text: 'edited' }] }, { type: 'text', text: TEXT }],
    });
  });
});
