import Anthropic from '@anthropic-ai/sdk';
import { scenario } from '@turnguard/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readSseRecords, startHarness, type Harness } from './testing/gateway-harness.test-helper.js';

// Real sockets end to end: @anthropic-ai/sdk → gateway → testkit loopback upstream. No msw here.
let harness: Harness;
let client: Anthropic;

beforeEach(async () => {
  harness = await startHarness();
  client = new Anthropic({ apiKey: 'sk-ant-client', baseURL: harness.url });
});
afterEach(async () => {
  await harness.close();
});

const ask = { model: 'claude-test', max_tokens: 4096, messages: [{ role: 'user' as const, content: 'think hard' }] };

describe('R8 gateway × @anthropic-ai/sdk messages', () => {
  it('R4.1 a thinking-only cut is recovered: one message_start, the recovered text once, end_turn', async () => {
    harness.upstream.messages.enqueue(scenario.messages().reasoning(300).usage({ input: 7, output: 1 }).eof(), scenario.messages().text('Recovered conclusion.').usage({ input: 7, output: 3 }));
    const stream = client.messages.stream(ask);
    const types: string[] = [];
    stream.on('streamEvent', (event) => types.push(event.type));
    const message = await stream.finalMessage();
    expect(types.filter((type) => type === 'message_start')).toHaveLength(1);
    expect(message.content.filter((block) => block.type === 'text').map((block) => (block as { text: string }).text)).toEqual(['Recovered conclusion.']);
    expect(message.stop_reason).toBe('end_turn');
    expect(harness.upstream.requests).toHaveLength(2);
    // R8.6: the client's own auth header reaches the upstream as it sent it (this SDK sends a Bearer token).
    const sent = harness.upstream.requests[0]?.headers ?? {};
    expect(sent['authorization'] ?? sent['x-api-key']).toMatch(/sk-ant-client$/);
    await harness.sink.waitForTurns(1);
    expect(harness.sink.turns[0]).toMatchObject({ protocol: 'messages', outcome: 'ok', recovered: true });
  });

  it('the next turn forwards the recovered message without the unsigned thinking block of the cut segment', async () => {
    // Cut in the middle of the thinking deltas, before any signature_delta.
    harness.upstream.messages.enqueue(scenario.messages().reasoning(300).usage({ input: 7, output: 1 }).eof({ afterEvents: 6 }), scenario.messages().text('Recovered conclusion.').usage({ input: 7, output: 3 }));
    const first = await client.messages.stream(ask).finalMessage();
    const unsigned = first.content.filter((block) => block.type === 'thinking' && block.signature === '');
    expect(unsigned).toHaveLength(1); // segment 1's thinking, relayed live, never got a signature
    harness.upstream.messages.enqueue(scenario.messages().text('Next answer.').usage({ input: 9, output: 2 }));
    await client.messages.create({ ...ask, messages: [...ask.messages, { role: 'assistant', content: first.content }, { role: 'user', content: 'go on' }] });
    const forwarded = harness.upstream.requests.at(-1)?.body as { messages: Array<{ role: string; content: Array<{ type: string; signature?: string }> | string }> };
    const assistant = forwarded.messages.find((message) => message.role === 'assistant')!;
    expect((assistant.content as Array<{ type: string }>).map((block) => block.type)).toEqual(
      first.content.filter((block) => !(block.type === 'thinking' && block.signature === '')).map((block) => block.type),
    );
  });

  it('R8.3 text already out then a cut: the SSE ends with an `event: error`, no message_stop, no recovery', async () => {
    harness.upstream.messages.enqueue(scenario.messages().text('partial words that get cut off').eof({ afterEvents: 4 }));
    const failure = await client.messages
      .create({ ...ask, stream: true })
      .then(async (stream) => {
        for await (const _event of stream) {
          // drain
        }
      })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Anthropic.APIError);
    expect(harness.upstream.requests).toHaveLength(1);

    harness.upstream.messages.enqueue(scenario.messages().text('partial words that get cut off').eof({ afterEvents: 4 }));
    const raw = await fetch(`${harness.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
      body: JSON.stringify({ ...ask, stream: true }),
    });
    const records = await readSseRecords(raw);
    expect(records.at(-1)?.event).toBe('error');
    // Final after output (R8.10, decision 0360): a type Claude Code does not resend, not api_error.
    expect(JSON.parse(records.at(-1)!.data)).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(records.some((record) => record.event === 'message_stop')).toBe(false);
  });

  it('R4.2 a cut inside a tool_use block is not recovered', async () => {
    harness.upstream.messages.enqueue(scenario.messages().reasoning(100).toolCall('lookup', { q: 'x' }, { cutAtChar: 3 }));
    const failure = await client.messages.stream(ask).finalMessage().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(harness.upstream.requests).toHaveLength(1);
  });

  it('R4.2 a terminal frame (max_tokens) is relayed with no recovery', async () => {
    harness.upstream.messages.enqueue(scenario.messages().reasoning(100).usage({ input: 5, output: 100 }).finish('max_tokens'));
    const message = await client.messages.stream(ask).finalMessage();
    expect(message.stop_reason).toBe('max_tokens');
    expect(harness.upstream.requests).toHaveLength(1);
  });

  it('R1.3 a 529 overload is retried by the gateway', async () => {
    harness.upstream.messages.enqueue(scenario.messages().httpError(529, { headers: { 'retry-after-ms': '1' } }), scenario.messages().text('fine now'));
    const message = await client.messages.create(ask);
    expect(message.content).toEqual([{ type: 'text', text: 'fine now' }]);
    expect(harness.upstream.requests).toHaveLength(2);
  });

  it('non-streaming: a recovered turn is one Message JSON; a cut after text is an Anthropic-shaped 502', async () => {
    harness.upstream.messages.enqueue(scenario.messages().reasoning(300).usage({ input: 7, output: 1 }).eof(), scenario.messages().text('Final.'));
    const message = await client.messages.create(ask);
    expect(message.type).toBe('message');
    expect(message.content.at(-1)).toEqual({ type: 'text', text: 'Final.' });

    // A JSON client was shown none of a cut answer: restarted (decision 0430) until the upstream's circuit opens on its
    // fifth consecutive failure (R11.5; the recovered turn's cut was the first): 4 more requests, then the last cut's 502.
    for (let attempt = 0; attempt < 5; attempt += 1) harness.upstream.messages.enqueue(scenario.messages().text('partial words that get cut off').eof({ afterEvents: 4 }));
    const failure = await client.messages.create(ask).catch((error: unknown) => error);
    expect((failure as InstanceType<typeof Anthropic.APIError>).status).toBe(502);
    expect((failure as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ type: 'error', error: { type: 'api_error' } });
    // x-should-retry: false keeps the SDK (default 2 retries) from resending the long turn (R4.9).
    expect(harness.upstream.requests).toHaveLength(2 + 4);
  });

  it('R8.4 a client that disconnects mid-stream causes no further upstream request', async () => {
    harness.upstream.messages.enqueue(scenario.messages().reasoning(3000).eof().delay(1));
    const stream = await client.messages.create({ ...ask, stream: true });
    for await (const event of stream) {
      if (event.type === 'content_block_delta') break;
    }
    await harness.sink.waitForTurns(1);
    expect(harness.sink.turns[0]).toMatchObject({ outcome: 'aborted', physicalRequests: 1 });
    expect(harness.upstream.requests).toHaveLength(1);
  });
});
