import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Protocol } from '@turnguard/core';
import { fault } from './fault-spec.js';
import { startFaultUpstream, type FaultUpstream } from './fault-upstream.js';

const PATHS: Record<Protocol, string> = { chat: '/v1/chat/completions', messages: '/v1/messages', responses: '/v1/responses' };
const PROTOCOLS: Protocol[] = ['chat', 'messages', 'responses'];

function bodyFor(protocol: Protocol, model: string, stream = true): Record<string, unknown> {
  if (protocol === 'chat') return { model, stream, messages: [{ role: 'user', content: 'hi' }] };
  if (protocol === 'messages') return { model, stream, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] };
  return { model, stream, input: 'hi' };
}

describe('R11 fault upstream: scripted faults per model, on real sockets', () => {
  let upstream: FaultUpstream;
  let clock: number;

  beforeEach(async () => {
    clock = 1_000_000;
    upstream = await startFaultUpstream({ now: () => clock });
  });
  afterEach(async () => {
    await upstream.close();
  });

  const post = (protocol: Protocol, model: string, init: { signal?: AbortSignal; stream?: boolean; headers?: Record<string, string> } = {}): Promise<Response> =>
    fetch(`${upstream.url}${PATHS[protocol]}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k', ...init.headers },
      body: JSON.stringify(bodyFor(protocol, model, init.stream ?? true)),
      ...(init.signal === undefined ? {} : { signal: init.signal }),
    });

  it('answers several models at once, each from its own queue, then healthy; records every request head per model', async () => {
    upstream.model('primary').queue(fault.rateLimited({ retryAfterSeconds: 2 }), fault.unavailable());
    upstream.model('backup').always(fault.ok());
    expect((await post('chat', 'primary', { headers: { 'x-trace': 'a' } })).status).toBe(429);
    expect((await post('chat', 'backup')).status).toBe(200);
    expect((await post('chat', 'primary')).status).toBe(503);
    const healthy = await post('chat', 'primary');
    expect(healthy.status).toBe(200);
    await healthy.text();
    expect(upstream.requestsFor('primary').map((request) => request.path)).toEqual(['/v1/chat/completions', '/v1/chat/completions', '/v1/chat/completions']);
    expect(upstream.requestsFor('primary')[0]).toMatchObject({ method: 'POST', protocol: 'chat', model: 'primary', time: 1_000_000, headers: { 'x-trace': 'a', authorization: 'Bearer k' } });
    expect(upstream.requests.map((request) => request.model)).toEqual(['primary', 'backup', 'primary', 'primary']);
  });

  it('429 carries Retry-After when asked, and not otherwise', async () => {
    upstream.model('m').queue(fault.rateLimited({ retryAfterSeconds: 7 }), fault.rateLimited());
    expect((await post('messages', 'm')).headers.get('retry-after')).toBe('7');
    expect((await post('messages', 'm')).headers.get('retry-after')).toBeNull();
  });

  it('"down for a minute, then healthy" follows the injected clock', async () => {
    upstream.model('m').always(fault.downUntil(1_060_000));
    expect((await post('responses', 'm')).status).toBe(503);
    clock = 1_059_999;
    expect((await post('responses', 'm')).status).toBe(503);
    clock = 1_060_000;
    const response = await post('responses', 'm');
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('response.completed');
  });

  it.each(PROTOCOLS)('%s: reset before headers is a dropped connection', async (protocol) => {
    upstream.model('m').queue(fault.resetBeforeHeaders());
    await expect(post(protocol, 'm')).rejects.toThrow(/fetch failed/);
  });

  it.each(PROTOCOLS)('%s: no answer holds the socket without a header until the client gives up', async (protocol) => {
    upstream.model('m').queue(fault.noAnswer());
    await expect(post(protocol, 'm', { signal: AbortSignal.timeout(150) })).rejects.toThrow(/aborted|timeout/i);
    expect(upstream.requestsFor('m')).toHaveLength(1);
  });

  it.each(PROTOCOLS)('%s: a slow first token sends the headers at once and the first record after the delay', async (protocol) => {
    upstream.model('m').queue(fault.slowFirstToken(200));
    const started = performance.now();
    const response = await post(protocol, 'm');
    const headersAfter = performance.now() - started;
    const reader = response.body!.getReader();
    await reader.read();
    const firstAfter = performance.now() - started;
    expect(headersAfter).toBeLessThan(150);
    expect(firstAfter).toBeGreaterThanOrEqual(180);
    await reader.cancel();
  });

  it.each(PROTOCOLS)('%s: a cut mid-answer drops the socket after some records, with no terminal record', async (protocol) => {
    upstream.model('m').queue(fault.cut({ afterEvents: 3 }));
    const response = await post(protocol, 'm');
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    let text = '';
    const decoder = new TextDecoder();
    await expect(
      (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          text += decoder.decode(value, { stream: true });
        }
      })(),
    ).rejects.toThrow(/terminated/);
    expect(text.split('\n\n').filter((record) => record.trim() !== '')).toHaveLength(3);
    expect(text).not.toMatch(/\[DONE\]|message_stop|response\.completed/);
  });

  it.each(PROTOCOLS)('%s: a stall sends N records, then nothing on an open socket', async (protocol) => {
    upstream.model('m').queue(fault.stall(2));
    const response = await post(protocol, 'm');
    const reader = response.body!.getReader();
    let text = '';
    const decoder = new TextDecoder();
    while (text.split('\n\n').filter((record) => record.trim() !== '').length < 2) text += decoder.decode((await reader.read()).value);
    const next = reader.read();
    const silent = await Promise.race([next.then(() => 'data'), new Promise((resolve) => setTimeout(() => resolve('silent'), 150))]);
    expect(silent).toBe('silent');
    await upstream.close();
    await next.catch(() => undefined);
  });

  it.each(PROTOCOLS)('%s: a malformed record mid-stream, then the rest of the answer', async (protocol) => {
    upstream.model('m').queue(fault.malformed(2));
    const text = await (await post(protocol, 'm')).text();
    const records = text.split('\n\n').filter((record) => record.trim() !== '');
    expect(() => JSON.parse(records[2]!.split('data: ')[1]!)).toThrow();
    expect(text).toMatch(/\[DONE\]|message_stop|response\.completed/);
  });

  it.each(PROTOCOLS)('%s JSON: a cut, a stall and a malformed answer break off half-way through the body', async (protocol) => {
    upstream.model('m').queue(fault.cut(), fault.stall(1), fault.malformed(1));
    await expect((await post(protocol, 'm', { stream: false })).text()).rejects.toThrow(/terminated/);
    const stalled = await post(protocol, 'm', { stream: false });
    expect(stalled.headers.get('content-type')).toContain('application/json');
    const reader = stalled.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    const next = reader.read();
    expect(await Promise.race([next.then(() => 'data'), new Promise((resolve) => setTimeout(() => resolve('silent'), 150))])).toBe('silent');
    const broken = await (await post(protocol, 'm', { stream: false })).text();
    expect(() => JSON.parse(broken)).toThrow();
    expect(broken.startsWith('{')).toBe(true);
    await upstream.close();
    await next.catch(() => undefined);
  });

  it('a complete stream without its final sentinel: Chat without [DONE], Messages without message_stop', async () => {
    upstream.model('m').queue(fault.noSentinel(), fault.noSentinel());
    const chat = await (await post('chat', 'm')).text();
    expect(chat).toContain('"finish_reason":"stop"');
    expect(chat).not.toContain('[DONE]');
    const messages = await (await post('messages', 'm')).text();
    expect(messages).toContain('"stop_reason":"end_turn"');
    expect(messages).not.toContain('message_stop');
  });

  it.each([
    ['chat', 'context_length_exceeded'],
    ['responses', 'context_length_exceeded'],
    ['messages', 'prompt is too long: 200251 tokens > 200000 maximum'],
  ] as const)('%s: the context-length 400 in the provider\'s shape', async (protocol, marker) => {
    upstream.model('m').queue(fault.contextLength());
    const response = await post(protocol, 'm');
    expect(response.status).toBe(400);
    expect(await response.text()).toContain(marker);
  });

  it('content filter: a 400 `content_filter` on the OpenAI routes, a `refusal` stop on Messages', async () => {
    upstream.model('m').queue(fault.contentFilter(), fault.contentFilter());
    const chat = await post('chat', 'm');
    expect(chat.status).toBe(400);
    expect(await chat.json()).toMatchObject({ error: { code: 'content_filter' } });
    const messages = await (await post('messages', 'm')).text();
    expect(messages).toContain('"stop_reason":"refusal"');
  });

  it('a refused prefill: Anthropic\'s and llama.cpp\'s 400', async () => {
    upstream.model('m').queue(fault.prefillRefused(), fault.prefillRefused());
    expect(await (await post('messages', 'm')).json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining('does not support assistant message prefill') } });
    expect(await (await post('chat', 'm')).json()).toMatchObject({ error: { message: 'Assistant response prefill is incompatible with enable_thinking.' } });
  });

  it('the official SDKs read a healthy answer and a context-length error as they would from the providers', async () => {
    upstream.model('ok').always(fault.ok());
    upstream.model('long').always(fault.contextLength());
    const openai = new OpenAI({ apiKey: 'k', baseURL: upstream.baseUrl, maxRetries: 0 });
    const anthropic = new Anthropic({ apiKey: 'k', baseURL: upstream.url, maxRetries: 0 });
    const chat = await openai.chat.completions.create({ model: 'ok', messages: [{ role: 'user', content: 'hi' }] });
    expect(chat.choices[0]?.message.content).toBe('The answer from the fault upstream.');
    const message = await anthropic.messages.stream({ model: 'ok', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
    expect(message.content).toMatchObject([{ type: 'text', text: 'The answer from the fault upstream.' }]);
    const response = await openai.responses.stream({ model: 'ok', input: 'hi' }).finalResponse();
    expect(response.output_text).toBe('The answer from the fault upstream.');
    await expect(anthropic.messages.create({ model: 'long', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 400 });
    await expect(openai.chat.completions.create({ model: 'long', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 400, code: 'context_length_exceeded' });
  });
});
