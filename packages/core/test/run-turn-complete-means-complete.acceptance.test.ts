/**
 * R8.12 "complete means complete" over real sockets: a response
 * whose terminal frame arrived is complete even when the transport then ends
 * badly. msw cannot produce these socket shapes (toolchain pitfall 5), so a
 * raw `node:net` server writes the HTTP/1.1 response by hand; this file must
 * never load msw (pitfall 4).
 *
 * The bodies are the testkit's own wire for each protocol, captured once from
 * its loopback upstream, so the frames are the ones every other suite uses.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { scenario, startLoopbackUpstream } from '@turnguard/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Protocol } from '../src/index.js';
import { adapterFor, buildNativeRequest, collectEvents, enqueue, PROTOCOLS, startTurn, targetBaseUrl, textOf } from './turn-harness.js';

const ANSWER = 'The complete answer.';

/** How the raw server ends a response after writing `body` (or, for the controls, part of it). */
type BadEnding =
  | 'chunked-no-last-chunk-then-fin'
  | 'chunked-no-last-chunk-then-rst'
  | 'content-length-one-byte-long'
  | 'bad-trailer';

const BAD_ENDINGS: BadEnding[] = [
  'chunked-no-last-chunk-then-fin',
  'chunked-no-last-chunk-then-rst',
  'content-length-one-byte-long',
  'bad-trailer',
];

const completeBodies = new Map<Protocol, Buffer>();

/** The testkit's complete SSE body for a plain text answer, as its loopback upstream serves it. */
async function captureBody(protocol: Protocol): Promise<Buffer> {
  const upstream = await startLoopbackUpstream();
  try {
    enqueue(upstream, protocol, scenario.for(protocol).text(ANSWER));
    const adapter = adapterFor(protocol);
    const native = adapter.withStreaming(buildNativeRequest(protocol));
    const http = adapter.buildHttpRequest(native, { baseUrl: targetBaseUrl(protocol, upstream.baseUrl), apiKey: 'sk-test' });
    const response = await fetch(http.url, { method: 'POST', headers: http.headers, body: http.body });
    return Buffer.from(await response.arrayBuffer());
  } finally {
    await upstream.close();
  }
}

// A keep-alive response, as providers send: with `connection: close` undici reads a
// FIN/RST as the end of the body (client-h1 `onSocketClose`), not as a failure.
const HEAD = 'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n';

function writeResponse(socket: Socket, body: Buffer, ending: BadEnding): void {
  const chunk = Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n')]);
  switch (ending) {
    case 'chunked-no-last-chunk-then-fin':
      socket.end(Buffer.concat([Buffer.from(`${HEAD}transfer-encoding: chunked\r\n\r\n`), chunk]));
      return;
    case 'chunked-no-last-chunk-then-rst':
      socket.write(Buffer.concat([Buffer.from(`${HEAD}transfer-encoding: chunked\r\n\r\n`), chunk]), () => {
        socket.resetAndDestroy();
      });
      return;
    case 'content-length-one-byte-long':
      socket.end(Buffer.concat([Buffer.from(`${HEAD}content-length: ${body.length + 1}\r\n\r\n`), body]));
      return;
    case 'bad-trailer':
      // A trailer line with no colon: llhttp rejects it after the last chunk.
      socket.end(
        Buffer.concat([Buffer.from(`${HEAD}transfer-encoding: chunked\r\n\r\n`), chunk, Buffer.from('0\r\nnot a header line\r\n\r\n')]),
      );
      return;
    default: {
      const _exhaustive: never = ending;
      void _exhaustive;
    }
  }
}

interface RawUpstream {
  baseUrl: string;
  requests: number;
  close(): Promise<void>;
}

/** Answers every request (after reading its headers and body) with `body` ended by `ending`. */
async function startRawUpstream(body: Buffer, ending: BadEnding): Promise<RawUpstream> {
  const sockets = new Set<Socket>();
  const upstream: RawUpstream = { baseUrl: '', requests: 0, close: async () => undefined };
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let received = '';
    socket.on('data', (data: Buffer) => {
      received += data.toString('latin1');
      const headerEnd = received.indexOf('\r\n\r\n');
      if (headerEnd === -1) return;
      const length = Number(/content-length:\s*(\d+)/i.exec(received.slice(0, headerEnd))?.[1] ?? 0);
      if (received.length - headerEnd - 4 < length) return;
      received = '';
      upstream.requests += 1;
      writeResponse(socket, body, ending);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstream.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  upstream.close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return upstream;
}

/** The body cut just before the protocol's terminal frame (Chat's finish chunk, Messages' message_delta, Responses' response.completed). */
function withoutTerminalFrame(protocol: Protocol, body: Buffer): Buffer {
  const marker = { chat: '"finish_reason":"', messages: 'event: message_delta', responses: 'event: response.completed' }[protocol];
  const text = body.toString('utf8');
  const at = protocol === 'chat' ? text.lastIndexOf('data: ', text.search(/"finish_reason":"[a-z_]+"/)) : text.indexOf(marker);
  if (at <= 0) throw new Error(`test: no terminal frame found in the ${protocol} body`);
  return Buffer.from(text.slice(0, at), 'utf8');
}

let raw: RawUpstream | undefined;
beforeAll(async () => {
  for (const protocol of PROTOCOLS) completeBodies.set(protocol, await captureBody(protocol));
});
afterEach(async () => {
  await raw?.close();
  raw = undefined;
});
afterAll(() => completeBodies.clear());

describe('the bad endings are real read failures', () => {
  it.each(BAD_ENDINGS)('%s: fetch reads the whole body, then rejects with TypeError: terminated', async (ending) => {
    const body = completeBodies.get('chat')!;
    raw = await startRawUpstream(body, ending);
    const response = await fetch(raw.baseUrl, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    const reader = response.body!.getReader();
    let bytes = 0;
    const failure = await (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return undefined;
        bytes += value.byteLength;
      }
    })().catch((error: unknown) => error);
    expect(bytes).toBe(body.length);
    expect(failure).toMatchObject({ name: 'TypeError', message: 'terminated' });
  });
});

describe.each(PROTOCOLS)('R8.12 complete means complete over real sockets, %s', (protocol) => {
  it.each(BAD_ENDINGS)('%s after the terminal frame: ok with the finish reason, one request, no retry', async (ending) => {
    raw = await startRawUpstream(completeBodies.get(protocol)!, ending);
    const { run, samples, turns } = startTurn(protocol, { baseUrl: raw.baseUrl });
    const events = await collectEvents(run);
    const result = await run.result;
    expect(result.error).toBeUndefined();
    expect(result.outcome).toBe('ok');
    expect(result.finishReason?.unified).toBe('stop');
    expect(textOf(events)).toBe(ANSWER);
    expect(events.some((event) => event.type === 'retry')).toBe(false);
    expect(raw.requests).toBe(1);
    expect(samples.map((sample) => [sample.ok, sample.errorCode])).toEqual([[true, undefined]]);
    expect(turns).toEqual([expect.objectContaining({ outcome: 'ok', physicalRequests: 1 })]);
  });

  it('control: the same bad ending before the terminal frame is still a failure after output (STREAM_CUT, no retry)', async () => {
    raw = await startRawUpstream(withoutTerminalFrame(protocol, completeBodies.get(protocol)!), 'chunked-no-last-chunk-then-rst');
    const { run, turns } = startTurn(protocol, { baseUrl: raw.baseUrl, streamRecovery: false });
    await collectEvents(run);
    expect((await run.result).error).toMatchObject({ code: 'STREAM_CUT', details: { upstreamCode: 'TRANSPORT' } });
    expect(raw.requests).toBe(1);
    expect(turns).toEqual([expect.objectContaining({ outcome: 'failed', physicalRequests: 1 })]);
  });
});
