import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { scenario } from '../scenario/builder.js';
import { startLoopbackUpstream, type LoopbackUpstream } from './loopback-upstream.js';

// Real sockets only: this file must never load msw (toolchain pitfall 4), because
// msw would intercept the loopback traffic and hide the real socket drop (pitfall 5).
let upstream: LoopbackUpstream | undefined;

afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

async function start(options?: Parameters<typeof startLoopbackUpstream>[0]): Promise<{ up: LoopbackUpstream; client: OpenAI }> {
  upstream = await startLoopbackUpstream(options);
  return { up: upstream, client: new OpenAI({ apiKey: 'sk-test', baseURL: upstream.baseUrl, maxRetries: 0 }) };
}

describe('loopback upstream (R1.1 transport failures, R4.2)', () => {
  it('serves a full stream on 127.0.0.1 and records the request exactly', async () => {
    const { up, client } = await start();
    up.chat.enqueue(scenario.chat().text('Hello loopback').usage({ input: 2, output: 3 }));
    const stream = await client.chat.completions.create({ model: 'gpt-loop', messages: [{ role: 'user', content: 'q' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Hello loopback');
    expect(up.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(up.requests).toHaveLength(1);
    expect(up.requests[0]?.url).toBe(`${up.baseUrl}/chat/completions`);
    expect(up.requests[0]?.body).toEqual({ model: 'gpt-loop', messages: [{ role: 'user', content: 'q' }], stream: true });
    expect(up.requests[0]?.headers.authorization).toBe('Bearer sk-test');
  });

  it('a socket destroyed after K bytes yields the events so far, then undici TypeError: terminated', async () => {
    const { up, client } = await start();
    up.chat.enqueue(scenario.chat().reasoning(3000).text('never seen').destroySocket({ afterBytes: 2000 }));
    const stream = await client.chat.completions.create({ model: 'm', messages: [], stream: true });
    let reasoning = '';
    const consume = async (): Promise<void> => {
      for await (const chunk of stream) {
        reasoning += ((chunk.choices[0]?.delta as Record<string, unknown> | undefined)?.reasoning_content as string | null) ?? '';
      }
    };
    const error = await consume().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe('terminated');
    expect(error).not.toBeInstanceOf(OpenAI.APIError);
    expect(((error as Error).cause as { code?: string }).code).toBe('UND_ERR_SOCKET');
    expect(reasoning.length).toBeGreaterThan(0);
    expect(reasoning.length).toBeLessThan(3000);
  });

  it('a socket destroyed before headers is an APIConnectionError', async () => {
    const { up, client } = await start();
    up.responses.enqueue(scenario.responses().destroySocketBeforeHeaders());
    const error = await client.responses.create({ model: 'm', input: 'x', stream: true }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIConnectionError);
    expect(up.requestsFor('responses')).toHaveLength(1);
  });

  it('a clean EOF after K events ends the stream without a terminal frame', async () => {
    const { up, client } = await start();
    up.chat.enqueue(scenario.chat().text('a b c d e f').eof({ afterEvents: 3 }));
    const stream = await client.chat.completions.create({ model: 'm', messages: [], stream: true });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks).toHaveLength(3);
    expect(chunks.every((chunk) => chunk.choices[0]?.finish_reason === null)).toBe(true);
  });

  it('serves the default scenario factory when a route queue is empty', async () => {
    const { up, client } = await start({
      defaultScenario: (protocol) => (protocol === 'chat' ? scenario.chat().text('default reply') : undefined),
    });
    const completion = await client.chat.completions.create({ model: 'm', messages: [] });
    expect(completion.choices[0]?.message.content).toBe('default reply');
    const missing = await client.responses.create({ model: 'm', input: 'x' }).catch((caught: unknown) => caught);
    expect((missing as InstanceType<typeof OpenAI.APIError>).status).toBe(500);
    expect(up.requests.map((request) => request.protocol)).toEqual(['chat', 'responses']);
  });

  it('answers unknown routes with 404 without recording them', async () => {
    const { up } = await start();
    const response = await fetch(`${up.baseUrl}/embeddings`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(404);
    expect(up.requests).toHaveLength(0);
  });

  it('closes cleanly while a delayed reply is still pending', async () => {
    const { up, client } = await start();
    up.chat.enqueue(scenario.chat().text('slow words here').delay(60_000));
    const stream = await client.chat.completions.create({ model: 'm', messages: [], stream: true });
    const consume = (async () => {
      for await (const _chunk of stream) {
        // no chunk arrives before close: the first one waits 60 s
      }
    })();
    await up.close();
    upstream = undefined;
    await expect(consume).rejects.toThrow(/terminated/);
  });
});
