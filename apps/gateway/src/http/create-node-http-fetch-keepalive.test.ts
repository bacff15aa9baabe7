import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { chatAdapter } from '@turnguard/adapter-chat';
import { runTurn, type TurnEvent } from '@turnguard/core';
import { createNodeHttpFetch, type NodeHttpFetch } from './create-node-http-fetch.js';

// R1.1, decision 0220: the keep-alive close race. The upstream closes the kept-alive socket (FIN or RST) right
// after each complete response and the next request goes out at once; on the lean HTTP/1.1 client
// 20 of 40 turns failed, and every recovery request after a clean EOF failed (it is never retried).

const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const USAGE = `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', model: 'm', choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } })}\n\n`;
const COMPLETE = `${chunk({ role: 'assistant', content: 'Hello' })}${chunk({}, 'stop')}${USAGE}data: [DONE]\n\n`;
/** Segment 1 of a cut thinking turn (R4.1): reasoning only, then a clean EOF with no finish_reason and no [DONE]. */
const CUT = chunk({ role: 'assistant', reasoning_content: 'Weighing the lemma step by step.' });
const RECOVERED = `${chunk({ role: 'assistant', content: 'Hello' })}${chunk({}, 'stop')}${USAGE}data: [DONE]\n\n`;

type Close = 'fin' | 'rst';
let server: Server | undefined;
let transport: NodeHttpFetch | undefined;

afterEach(async () => {
  transport?.destroy();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
  server = undefined;
});

/** An upstream answering `bodies` in turn, closing the socket right after each complete response. */
async function startClosingUpstream(close: Close, bodies: string[]): Promise<{ baseUrl: string; requests: () => number }> {
  let requests = 0;
  server = createServer((request, response: ServerResponse) => {
    const socket: Socket = request.socket;
    request.resume();
    request.on('end', () => {
      const body = bodies[requests % bodies.length]!;
      requests += 1;
      // No `connection: close`: the client only learns of the close from the socket, as with a real server's idle cut.
      response.writeHead(200, { 'content-type': 'text/event-stream', 'content-length': Buffer.byteLength(body) });
      response.end(body, () => (close === 'fin' ? socket.end() : socket.resetAndDestroy()));
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests: () => requests };
}

async function runChatTurn(baseUrl: string): Promise<{ text: string; outcome: string; segments: number }> {
  const run = runTurn({
    adapter: chatAdapter,
    request: chatAdapter.buildRequest({ messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] }, { model: 'm', stream: true }),
    target: { baseUrl, apiKey: 'sk-test' },
    fetch: transport!.fetch,
    // No retries: a lost race must show as a failed turn, not hide behind R1.
    retry: { maxRetries: 0, initialDelayMs: 0 },
  });
  let text = '';
  for await (const event of run as AsyncIterable<TurnEvent>) if (event.type === 'text-delta') text += event.delta;
  const result = await run.result;
  return { text, outcome: result.outcome, segments: result.segments.length };
}

describe.each<Close>(['fin', 'rst'])('the keep-alive close race (server %s right after each response)', (close) => {
  it('R1.1 0 failed turns in 40, each request sent at once on the pool', async () => {
    const upstream = await startClosingUpstream(close, [COMPLETE]);
    transport = createNodeHttpFetch({ env: {} });
    const outcomes: string[] = [];
    for (let turn = 0; turn < 40; turn += 1) outcomes.push((await runChatTurn(upstream.baseUrl)).outcome);
    expect(outcomes.filter((outcome) => outcome !== 'ok')).toEqual([]);
    expect(upstream.requests()).toBe(40);
  });

  it('R4.1 segment 1 ends with a clean EOF and the socket closes: the recovery request never fails (40 turns)', async () => {
    const upstream = await startClosingUpstream(close, [CUT, RECOVERED]);
    transport = createNodeHttpFetch({ env: {} });
    const turns: Array<{ text: string; outcome: string; segments: number }> = [];
    for (let turn = 0; turn < 40; turn += 1) turns.push(await runChatTurn(upstream.baseUrl));
    expect(turns.filter((turn) => turn.outcome !== 'ok' || turn.segments !== 2 || turn.text !== 'Hello')).toEqual([]);
    expect(upstream.requests()).toBe(80);
  });
});
