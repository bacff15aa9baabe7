import OpenAI from 'openai';
import { scenario } from '@turnguard/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readSseRecords, startHarness, type Harness } from './testing/gateway-harness.test-helper.js';

// Real sockets end to end: openai SDK (responses) → gateway → testkit loopback upstream. No msw here.
let harness: Harness;
let client: OpenAI;

beforeEach(async () => {
  harness = await startHarness();
  client = new OpenAI({ apiKey: 'sk-client', baseURL: harness.openAiBaseUrl });
});
afterEach(async () => {
  await harness.close();
});

const ask = { model: 'gpt-test', input: 'think hard' };

async function postRaw(body: Record<string, unknown>): Promise<Response> {
  return fetch(`${harness.openAiBaseUrl}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
    body: JSON.stringify(body),
  });
}

describe('R8 gateway × openai responses', () => {
  it('R4.1 a reasoning-only cut is recovered as one response: one response.created, one id, growing sequence numbers', async () => {
    harness.upstream.responses.enqueue(scenario.responses().reasoning(300).eof(), scenario.responses().text('Recovered result.').usage({ input: 4, output: 2 }));
    const records = await readSseRecords(await postRaw({ ...ask, stream: true }));
    const events = records.map((record) => JSON.parse(record.data) as { type: string; sequence_number: number; response?: { id: string } });
    expect(events.filter((event) => event.type === 'response.created')).toHaveLength(1);
    expect(new Set(events.flatMap((event) => (event.response ? [event.response.id] : []))).size).toBe(1);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_event, index) => index));
    expect(events.at(-1)?.type).toBe('response.completed');
    expect(harness.upstream.requests).toHaveLength(2);
  });

  it('the SDK stream helper ends with the recovered text once', async () => {
    harness.upstream.responses.enqueue(scenario.responses().reasoning(300).eof(), scenario.responses().text('Recovered result.'));
    const final = await client.responses.stream(ask).finalResponse();
    expect(final.output_text).toBe('Recovered result.');
    expect(final.status).toBe('completed');
  });

  it('R8.3 text already out then a cut: an error event then response.failed; no recovery request', async () => {
    harness.upstream.responses.enqueue(scenario.responses().text('partial words that get cut off').eof({ afterEvents: 6 }));
    const failure = await (async () => {
      const stream = await client.responses.create({ ...ask, stream: true });
      for await (const _event of stream) {
        // drain
      }
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);

    harness.upstream.responses.enqueue(scenario.responses().text('partial words that get cut off').eof({ afterEvents: 6 }));
    const records = await readSseRecords(await postRaw({ ...ask, stream: true }));
    const types = records.map((record) => record.event);
    // The adapter's encoder closes the open items between the error and the terminal response.failed.
    expect(types.at(-1)).toBe('response.failed');
    expect(types).not.toContain('response.completed');
    const errorRecord = records.find((record) => record.event === 'error');
    // Final after output (R8.10, decision 0360): the code Codex does not resend, the message says so in plain words.
    expect(JSON.parse(errorRecord!.data)).toMatchObject({ type: 'error', error: { code: 'invalid_prompt', message: expect.stringContaining('(STREAM_CUT). It is final') } });
    expect(types.lastIndexOf('response.output_text.delta')).toBeLessThan(types.indexOf('error'));
    expect(harness.upstream.requests).toHaveLength(2);
  });

  it('R4.2 a cut inside a function call is not recovered', async () => {
    harness.upstream.responses.enqueue(scenario.responses().reasoning(100).toolCall('lookup', { q: 'x' }, { cutAtChar: 3 }));
    const records = await readSseRecords(await postRaw({ ...ask, stream: true }));
    expect(records.at(-1)?.event).toBe('response.failed');
    expect(harness.upstream.requests).toHaveLength(1);
  });

  it('non-streaming: a recovered turn is one Response JSON; a cut after text is a JSON 502 (R8.3)', async () => {
    harness.upstream.responses.enqueue(scenario.responses().reasoning(300).eof(), scenario.responses().text('Done.').usage({ input: 3, output: 1 }));
    const response = await client.responses.create(ask);
    expect(response.output_text).toBe('Done.');
    expect(response.status).toBe('completed');
    expect(response.usage).toMatchObject({ input_tokens: 3, output_tokens: 1 });

    // A JSON client was shown none of a cut answer: restarted (decision 0430) until the upstream's circuit opens on its
    // fifth consecutive failure (R11.5; the recovered turn's cut was the first): 4 more requests, then the last cut's 502.
    for (let attempt = 0; attempt < 5; attempt += 1) harness.upstream.responses.enqueue(scenario.responses().text('partial words that get cut off').eof({ afterEvents: 6 }));
    const failure = await client.responses.create(ask).catch((error: unknown) => error);
    expect((failure as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect(harness.upstream.requests).toHaveLength(2 + 4);
  });

  it('R8.4 a client that disconnects mid-stream causes no further upstream request', async () => {
    harness.upstream.responses.enqueue(scenario.responses().reasoning(3000).eof().delay(1));
    const stream = await client.responses.create({ ...ask, stream: true });
    for await (const event of stream) {
      if (event.type === 'response.reasoning_summary_text.delta') break;
    }
    await harness.sink.waitForTurns(1);
    expect(harness.sink.turns[0]).toMatchObject({ outcome: 'aborted', physicalRequests: 1 });
    expect(harness.upstream.requests).toHaveLength(1);
  });
});
