import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { type DecodedStreamEvent, type Protocol } from '@turnguard/core';
import { collectEvents, frameRecordedLines, readRecordedStreams, streamOfText } from '@turnguard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from './create-gateway.js';
import { selectAdapter } from './protocol-routes.js';
import { chatBaseline, withoutHelperFields } from './testing/sdk-accumulator-baseline.test-helper.js';

// R8.6: for every recording in the repository's fixtures (readRecordedStreams), the same request
// direct to a loopback upstream and through the gateway gives equal results in the official SDKs,
// ids and request-id headers included.
let replies: string[] = [];
let upstreamBase = '';
let gateway: Gateway;
const upstream = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'req_diff', 'request-id': 'req_diff', 'openai-processing-ms': '3' });
    response.end(replies.shift() ?? '');
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamBase = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  gateway = createGateway({ port: 0, upstreams: { chat: `${upstreamBase}/v1`, responses: `${upstreamBase}/v1`, messages: upstreamBase }, env: {}, retry: { initialDelayMs: 1, maxDelayMs: 2 } });
  await gateway.listen();
});
afterAll(async () => {
  await gateway.close();
  await new Promise((resolve) => upstream.close(resolve));
});

async function endsNormally(protocol: Protocol, text: string): Promise<boolean> {
  const events: DecodedStreamEvent[] = await collectEvents(selectAdapter(protocol).decodeStream(streamOfText(text)));
  return events.some((event) => event.type === 'stream-end' && event.terminalFrameSeen) && !events.some((event) => event.type === 'error');
}

async function normalRecordings(protocol: Protocol): Promise<Array<{ name: string; text: string; lines: readonly string[] }>> {
  const out: Array<{ name: string; text: string; lines: readonly string[] }> = [];
  for (const recording of readRecordedStreams(protocol)) {
    const text = frameRecordedLines(protocol, recording.lines);
    if (await endsNormally(protocol, text)) out.push({ name: recording.name, text, lines: recording.lines });
  }
  return out;
}

/**
 * One SDK call against a fresh reply of `text`: its value, or its error's class and message (a
 * recording the SDK itself rejects, e.g. a repeated message_start, must be rejected the same way).
 */
async function outcome<T>(text: string, call: () => Promise<T>): Promise<{ value: T } | { error: string }> {
  replies = [text];
  try {
    return { value: await call() };
  } catch (error) {
    return { error: `${(error as Error).constructor.name}: ${(error as Error).message}` };
  }
}

/**
 * The same streamed call direct and through the gateway: equal results (or the same rejection by
 * the SDK itself). Returns the direct result, or undefined when the SDK rejected the recording.
 */
async function expectSameStreamed<T>(name: string, text: string, direct: () => Promise<T>, viaGateway: () => Promise<T>): Promise<{ expected: T; got: T } | undefined> {
  const directOutcome = await outcome(text, direct);
  const viaOutcome = await outcome(text, viaGateway);
  if (!('value' in directOutcome)) {
    expect(viaOutcome, name).toEqual(directOutcome);
    return undefined;
  }
  expect('value' in viaOutcome ? plain(viaOutcome.value) : viaOutcome, name).toEqual(plain(directOutcome.value));
  replies = [text];
  return 'value' in viaOutcome ? { expected: directOutcome.value, got: viaOutcome.value } : undefined;
}

/** The same value with JSON-only fields normalised away (undefined vs absent). */
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value)) as unknown;

describe('differential: direct vs through the gateway, every recording that ends normally', () => {
  it('messages: finalMessage and _request_id equal; the non-streaming body is finalMessage() as a whole (R8.6)', async () => {
    const recordings = await normalRecordings('messages');
    expect(recordings.length).toBeGreaterThanOrEqual(3);
    const ask = { model: 'claude-test', max_tokens: 64, messages: [{ role: 'user' as const, content: 'hi' }] };
    const direct = new Anthropic({ apiKey: 'k', baseURL: upstreamBase, maxRetries: 0 });
    const via = new Anthropic({ apiKey: 'k', baseURL: gateway.url!, maxRetries: 0 });
    let compared = 0;
    let repeatedStart = 0;
    for (const { name, text, lines } of recordings) {
      const once = lines.filter((line, at) => !(at > 0 && line === lines[0] && line.includes('"message_start"')));
      if (once.length < lines.length) {
        // The SDK rejects a repeated message_start; the gateway ignores a repeat of the open message
        // (decision 0235) and never relays it (exactly one message_start, R8.7, R8.13), so the client
        // gets, streamed and as JSON, what the SDK builds from the recording without the repeat.
        replies = [text];
        expect(await outcome(text, () => direct.messages.stream(ask).finalMessage()), name).toHaveProperty('error');
        replies = [frameRecordedLines('messages', once)];
        const withoutRepeat = await direct.messages.stream(ask).finalMessage();
        replies = [text];
        expect(plain(await via.messages.stream(ask).finalMessage()), name).toEqual(plain(withoutRepeat));
        replies = [text];
        expect(withoutHelperFields(await via.messages.create(ask)), name).toEqual(withoutHelperFields(withoutRepeat));
        repeatedStart += 1;
        continue;
      }
      const same = await expectSameStreamed(name, text, () => direct.messages.stream(ask).finalMessage(), () => via.messages.stream(ask).finalMessage());
      if (same === undefined) throw new Error(`${name}: the SDK rejected a recording that ends normally`);
      const { expected } = same;
      const requestIdOf = (message: unknown): unknown => (message as { _request_id?: string | null })._request_id;
      expect(requestIdOf(same.got), name).toBe(requestIdOf(expected));
      const json = await via.messages.create(ask);
      expect(json._request_id, name).toBe('req_diff');
      // Every field, the upstream's whole usage and block objects included; only the SDK's parsed_output differs.
      expect(withoutHelperFields(json), name).toEqual(withoutHelperFields(expected));
      compared += 1;
    }
    expect(compared).toBeGreaterThanOrEqual(5);
    expect(repeatedStart).toBe(1);
  });

  it('chat: finalChatCompletion and request_id equal; the non-streaming body is finalChatCompletion() as a whole (R8.6)', async () => {
    const recordings = await normalRecordings('chat');
    expect(recordings.length).toBeGreaterThanOrEqual(3);
    const ask = { model: 'gpt-test', messages: [{ role: 'user' as const, content: 'hi' }], stream_options: { include_usage: true } };
    const direct = new OpenAI({ apiKey: 'k', baseURL: `${upstreamBase}/v1`, maxRetries: 0 });
    const via = new OpenAI({ apiKey: 'k', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    let compared = 0;
    for (const { name, text, lines } of recordings) {
      const same = await expectSameStreamed(name, text, () => direct.chat.completions.stream(ask).finalChatCompletion(), () => via.chat.completions.stream(ask).finalChatCompletion());
      if (same === undefined) continue;
      const { data: json, request_id } = await via.chat.completions.create({ model: ask.model, messages: ask.messages }).withResponse();
      expect(request_id, name).toBe('req_diff');
      // Every field (system_fingerprint, service_tier, x_groq, the upstream's usage…); where openai-node's
      // accumulator is known to be wrong (Mistral's tool call with no index, streamed reasoning), the
      // baseline holds what the chunks say (decision 0235).
      const chunks = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(withoutHelperFields(json), name).toEqual(chatBaseline(same.expected, chunks));
      compared += 1;
    }
    expect(compared).toBe(recordings.length);
  });

  it('responses: finalResponse and request_id equal; the non-streaming body has the same id, output items and status', async () => {
    const recordings = await normalRecordings('responses');
    expect(recordings.length).toBeGreaterThanOrEqual(3);
    const ask = { model: 'gpt-test', input: 'hi' };
    const direct = new OpenAI({ apiKey: 'k', baseURL: `${upstreamBase}/v1`, maxRetries: 0 });
    const via = new OpenAI({ apiKey: 'k', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    for (const { name, text } of recordings) {
      const same = await expectSameStreamed(name, text, () => direct.responses.stream(ask).finalResponse(), () => via.responses.stream(ask).finalResponse());
      if (same === undefined) continue;
      const { expected } = same;
      const { data: json, request_id } = await via.responses.create(ask).withResponse();
      expect(request_id, name).toBe('req_diff');
      // R8.6: the response.completed object as it came (every field, the upstream's item ids); the
      // stream helper adds `parsed` / `output_parsed`, which a plain create() does not.
      expect(withoutHelperFields(json), name).toEqual(withoutHelperFields(expected));
    }
  });
});
