import OpenAI from 'openai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { scenario } from '../scenario/builder.js';
import { MOCK_BASE_URL, useSdkUpstream } from './sdk-upstream.test-helper.js';

// Per-chunk delays are plain setTimeout so fake timers drive them (no real sleeps);
// a client that stops reading early must not hang (R1.6 abort tests rely on it).
const sdk = useSdkUpstream(() => new OpenAI({ apiKey: 'sk-test', baseURL: MOCK_BASE_URL, maxRetries: 0 }));
const { upstream } = sdk;
afterEach(() => vi.useRealTimers());

describe('chunk delay and client cancellation', () => {
  it('holds each chunk back until fake time advances by the delay', async () => {
    upstream.chat.enqueue(scenario.chat().text('one two three').delay(1000));
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const response = await fetch('https://api.test/v1/chat/completions', { method: 'POST', body: '{"stream":true}' });
    const reader = response.body!.getReader();
    let received = '';
    const pending = reader.read().then((result) => {
      received = new TextDecoder().decode(result.value);
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(received).toBe('');
    await vi.advanceTimersByTimeAsync(1);
    await pending;
    expect(received).toContain('"role":"assistant"');
    await reader.cancel();
  });

  it('lets an SDK consumer break out of a long stream without hanging', async () => {
    upstream.chat.enqueue(scenario.chat().reasoning(5000));
    const stream = await sdk.client.chat.completions.create({ model: 'm', messages: [], stream: true });
    let count = 0;
    for await (const _chunk of stream) {
      if (++count === 3) break;
    }
    expect(count).toBe(3);
  });

  it('aborting the request stops a delayed stream', async () => {
    upstream.chat.enqueue(scenario.chat().text(100).delay(50));
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const controller = new AbortController();
    const stream = await sdk.client.chat.completions.create({ model: 'm', messages: [], stream: true }, { signal: controller.signal });
    const consume = (async () => {
      let count = 0;
      for await (const _chunk of stream) count++;
      return count;
    })();
    await vi.advanceTimersByTimeAsync(120);
    controller.abort();
    const count = await consume.catch(() => -1);
    expect(count).toBeGreaterThanOrEqual(1);
    expect(count).toBeLessThan(5);
  });
});
