import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { frameRecordedLines, readRecordedStreams } from '@turnguard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from './create-gateway.js';
import { withoutTurnComment } from './testing/turn-comment.test-helper.js';

// R8.2, decision 0233: the status and the upstream's headers go out as soon as
// segment 1 is a stream; `: keep-alive` comments while the upstream is silent; a retry before any
// output stays invisible. Real sockets both ways; no sleeps (every wait is on an observed event).
type Reply = (response: ServerResponse) => void;
const replies: Reply[] = [];
let requests = 0;
let gateway: Gateway;
const upstream = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    requests += 1;
    (replies.shift() ?? ((r: ServerResponse) => r.end()))(response);
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  gateway = createGateway({ port: 0, upstreams: { chat: `${base}/v1`, responses: `${base}/v1`, messages: base }, env: {}, retry: { initialDelayMs: 1, maxDelayMs: 2 }, sseKeepAliveMs: 10 });
  await gateway.listen();
});
afterAll(async () => {
  await gateway.close();
  await new Promise((resolve) => upstream.close(resolve));
});

const recording = readRecordedStreams('messages').find((stream) => stream.lines.some((line) => line.includes('text_delta')))!;
const complete = frameRecordedLines('messages', recording.lines);

function postMessages(): Promise<Response> {
  return fetch(`${gateway.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
    body: JSON.stringify({ model: 'claude-test', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });
}

/** Reads the body until `marker` appears; returns what was read and the reader. */
async function readUntil(response: Response, marker: string): Promise<{ text: string; reader: ReadableStreamDefaultReader<Uint8Array> }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!text.includes(marker)) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  return { text, reader };
}

describe('R8.2, decision 0233: the stream opens at once; silence is filled with SSE comments', () => {
  it('the client has the status and the upstream’s request id before the upstream sent any byte of its body', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    replies.push((response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': 'req_up_1' });
      response.flushHeaders();
      void released.then(() => response.end(complete));
    });
    const response = await postMessages();
    expect(response.status).toBe(200);
    expect(response.headers.get('request-id')).toBe('req_up_1');
    const { text, reader } = await readUntil(response, ': keep-alive\n\n');
    expect(text).toMatch(/^(: keep-alive\n\n)+$/);
    release();
    let rest = '';
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += decoder.decode(value, { stream: true });
    }
    // After the comments, the upstream's own bytes: no frame invented, the ids are the upstream's.
    expect(withoutTurnComment(rest.replace(/^(: keep-alive\n\n)+/, ''))).toBe(complete);
  });

  it('a cut before any output after the headers went out is retried invisibly: the client reads the retry’s stream', async () => {
    const messageStart = complete.slice(0, complete.indexOf('\n\n') + 2);
    replies.push(
      (response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': 'req_first' });
        response.end(messageStart);
      },
      (response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': 'req_second' });
        response.end(complete);
      },
    );
    const before = requests;
    const client = new Anthropic({ apiKey: 'k', baseURL: gateway.url!, maxRetries: 0 });
    const message = await client.messages.stream({ model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
    expect(requests - before).toBe(2);
    const direct = JSON.parse(recording.lines[0]!) as { message: { id: string } };
    expect(message.id).toBe(direct.message.id);
    expect(message.content.some((block) => block.type === 'text')).toBe(true);
  });

  it('every attempt cut before output after the headers: the protocol’s own error ending (the status was already 200)', async () => {
    const messageStart = complete.slice(0, complete.indexOf('\n\n') + 2);
    for (let attempt = 0; attempt < 10; attempt += 1) {
      replies.push((response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(messageStart);
      });
    }
    const response = await postMessages();
    expect(response.status).toBe(200);
    const body = withoutTurnComment((await response.text()).replace(/^(: keep-alive\n\n)+/, ''));
    expect(body).toMatch(/^event: error\ndata: \{"type":"error"/);
    replies.length = 0;
  });
});
