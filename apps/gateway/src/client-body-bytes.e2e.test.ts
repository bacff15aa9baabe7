import { scenario } from '@turnguard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './testing/gateway-harness.test-helper.js';

// R8.2: a request the gateway sends unchanged goes out as the client's own bytes,
// not parsed and serialized again; any change (another model, a retry, usage asked
// for on the client's behalf) is serialized. The loopback upstream records the
// physical bodies it got.
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** JSON.stringify never writes this spacing or key order: only the client's bytes have it. */
const messagesBody = '{ "stream" : true,\n  "model": "claude-test", "max_tokens": 64,\n  "messages": [ { "role": "user", "content": "h\\u00e9llo" } ] }';

async function post(path: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  const response = await fetch(`${harness!.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-client', ...headers }, body });
  await response.text();
  return response;
}

describe('R8.2 the client body is sent as it came when nothing changes it', () => {
  it('messages, streaming: the upstream gets the client’s bytes exactly, with the client’s key and a correct length', async () => {
    harness = await startHarness();
    harness.upstream.messages.enqueue(scenario.messages().text('ok'));
    expect((await post('/v1/messages', messagesBody)).status).toBe(200);
    const [sent] = harness.upstream.requests;
    expect(sent!.bodyText).toBe(messagesBody);
    expect(sent!.headers['content-length']).toBe(String(Buffer.byteLength(messagesBody)));
    expect(sent!.headers['x-api-key']).toBe('sk-ant-client');
  });

  it('chat asking for usage itself: the client’s bytes; chat without it: serialized with usage asked for', async () => {
    harness = await startHarness();
    const withUsage = '{"model":"gpt-test",  "stream":true, "stream_options":{"include_usage":true}, "messages":[{"role":"user","content":"hi"}]}';
    const withoutUsage = '{"model":"gpt-test",  "stream":true, "messages":[{"role":"user","content":"hi"}]}';
    harness.upstream.chat.enqueue(scenario.chat().text('ok'), scenario.chat().text('ok'));
    await post('/v1/chat/completions', withUsage, { authorization: 'Bearer sk-client' });
    await post('/v1/chat/completions', withoutUsage, { authorization: 'Bearer sk-client' });
    const [first, second] = harness.upstream.requests;
    expect(first!.bodyText).toBe(withUsage);
    expect(second!.bodyText).toBe(JSON.stringify({ ...JSON.parse(withoutUsage), stream_options: { include_usage: true } }));
  });

  it('a model the config maps to another name: the body is serialized with the upstream’s name', async () => {
    harness = await startHarness({ routing: { models: { 'claude-test': { upstream: 'messages', model: 'claude-real' } } } });
    harness.upstream.messages.enqueue(scenario.messages().text('ok'));
    await post('/v1/messages', messagesBody);
    const [sent] = harness.upstream.requests;
    expect(sent!.bodyText).toBe(JSON.stringify({ ...JSON.parse(messagesBody), model: 'claude-real' }));
  });

  it('a retry after a 503 is serialized; the first attempt was the client’s bytes', async () => {
    harness = await startHarness();
    harness.upstream.messages.enqueue(scenario.messages().httpError(503), scenario.messages().text('ok'));
    expect((await post('/v1/messages', messagesBody)).status).toBe(200);
    const [first, retry] = harness.upstream.requests;
    expect(first!.bodyText).toBe(messagesBody);
    expect(retry!.bodyText).toBe(JSON.stringify(JSON.parse(messagesBody)));
  });
});
