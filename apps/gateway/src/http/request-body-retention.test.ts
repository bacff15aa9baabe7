import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { Agent } from 'undici';
import { describe, expect, it } from 'vitest';
import { runFullGcs } from '@turnguard/testkit';
import { handOverOnce } from './hand-over-once.js';
import { dispatchRequest } from './create-node-http-fetch-handler.js';
import { readRequestBody } from './read-request-body.js';

// A request and its upstream call live as long as their stream, so whatever
// still reaches the prompt's bytes holds a copy of it per open stream (decision
// 0320: the built request is not held while the stream is read). These check,
// with V8's own collector, that nothing does.

/** Lets the promise jobs of a settled read run, so nothing on the stack holds the value. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

async function readAndForget(request: IncomingMessage): Promise<WeakRef<Buffer>> {
  const body = await readRequestBody(request, 1024 * 1024);
  expect(body.byteLength).toBe(2 * 64 * 1024);
  return new WeakRef(body);
}

describe('the prompt is not held again per open stream (decision 0320)', () => {
  it('readRequestBody keeps no reference to the body once read, though the request lives on', async () => {
    const request = Object.assign(new PassThrough(), { headers: {} }) as unknown as IncomingMessage & PassThrough;
    const reading = readAndForget(request);
    request.write(Buffer.alloc(64 * 1024, 'a'));
    request.end(Buffer.alloc(64 * 1024, 'b'));
    const body = await reading;
    await settle();
    runFullGcs();
    expect(body.deref()).toBeUndefined();
    expect(request.listenerCount('data')).toBe(0);
    expect(request.listenerCount('error')).toBe(1);
  });

  it('the upstream body is handed to undici once, with its length, and not kept by the iterable undici holds', async () => {
    const headers: Record<string, string> = {};
    const prompt = `{"prompt":"${'é'.repeat(8192)}"}`;
    const iterable = handOverOnce(prompt, headers)!;
    expect(headers['content-length']).toBe(String(Buffer.byteLength(prompt)));
    const iterator = iterable[Symbol.iterator]();
    let first: IteratorResult<Buffer> | undefined = iterator.next();
    expect(first.done).toBe(false);
    expect(Buffer.from(first.value!).toString()).toBe(prompt);
    const sent = new WeakRef(first.value!);
    first = undefined;
    // A WeakRef keeps its target until the current job ends (ECMA-262 AddToKeptObjects).
    await settle();
    runFullGcs();
    expect(sent.deref()).toBeUndefined();
    // The iterable itself is still alive here, as undici's request keeps it: spent, it hands over nothing more.
    expect(iterator.next().done).toBe(true);
  });

  it('no body: nothing to hand over, and no content-length of ours (undici sends 0 for a POST)', () => {
    const headers: Record<string, string> = {};
    expect(handOverOnce('', headers)).toBeUndefined();
    expect(handOverOnce(undefined, headers)).toBeUndefined();
    expect(headers).toEqual({});
  });
});

describe('dispatchRequest holds nothing of the request once its head is in (decision 0320)', () => {
  it('the dispatch options (body included) are collectable while the response stream is open', async () => {
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: 1\n\n'); // and the stream stays open
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const agent = new Agent();
    try {
      const { port } = server.address() as AddressInfo;
      const options: WeakRef<object>[] = [];
      const response = await dispatchAndForget(agent, `http://127.0.0.1:${port}`, options);
      const reader = response.body!.getReader();
      expect(Buffer.from((await reader.read()).value!).toString()).toBe('data: 1\n\n');
      await settle();
      runFullGcs();
      expect(options[0]!.deref()).toBeUndefined();
      await reader.cancel();
    } finally {
      server.closeAllConnections();
      server.close();
      await agent.close();
    }
  });
});

async function dispatchAndForget(agent: Agent, origin: string, refs: WeakRef<object>[]) {
  const options = { origin, path: '/', method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"prompt":"${'x'.repeat(4096)}"}` };
  refs.push(new WeakRef(options));
  return dispatchRequest(agent, options, new AbortController().signal);
}
