import { scenario } from '@turnguard/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readSseRecords, startHarness, type Harness } from './testing/gateway-harness.test-helper.js';
import { metricValue } from './testing/metric-value.test-helper.js';

// Real sockets: fetch → gateway (node:http) → testkit loopback upstream. What the relay lets through
// of runTurn's events (forward/observe-turn-events.ts), on the paths where no raw upstream byte decides it.
let harness: Harness;

beforeEach(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness.close();
});

const ask = { model: 'gpt-test', messages: [{ role: 'user', content: 'think hard' }] };

function postChat(body: Record<string, unknown>): Promise<Response> {
  return fetch(`${harness.openAiBaseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-client' },
    body: JSON.stringify({ ...ask, ...body }),
  });
}

/** Chat usage-only chunks (`"choices":[]` with `usage`) in an SSE body. */
async function usageChunks(response: Response): Promise<number> {
  const records = await readSseRecords(response);
  return records.filter((record) => record.data !== '[DONE]').map((record) => JSON.parse(record.data) as { choices: unknown[]; usage?: unknown }).filter((chunk) => chunk.choices.length === 0 && chunk.usage != null).length;
}

describe('R5.2 the relay filters runTurn events after a splice (the encoder renders them, not the upstream bytes)', () => {
  it('a recovered Chat stream without stream_options.include_usage ends with no usage chunk', async () => {
    harness.upstream.chat.enqueue(scenario.chat().reasoning(300).eof(), scenario.chat().text('The answer is 42.').usage({ input: 9, output: 4 }));
    const response = await postChat({ stream: true });
    expect(response.status).toBe(200);
    expect(await usageChunks(response)).toBe(0);
    expect(harness.upstream.requests).toHaveLength(2);
  });

  it('the same recovered stream with include_usage ends with exactly one usage chunk', async () => {
    harness.upstream.chat.enqueue(scenario.chat().reasoning(300).eof(), scenario.chat().text('The answer is 42.').usage({ input: 9, output: 4 }));
    const response = await postChat({ stream: true, stream_options: { include_usage: true } });
    expect(await usageChunks(response)).toBe(1);
  });
});

describe('R1.3 retries are counted on the JSON path too', () => {
  it('a non-streaming request retried after a 429 answers 200 and counts one retry', async () => {
    harness.upstream.chat.enqueue(scenario.chat().httpError(429, { headers: { 'retry-after-ms': '1' } }), scenario.chat().text('after the wait'));
    const response = await postChat({ stream: false });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { choices: Array<{ message: { content: string } }> };
    expect(body.choices[0]?.message.content).toBe('after the wait');
    expect(harness.upstream.requests).toHaveLength(2);
    expect(await metricValue(harness.gateway.metrics, 'turnguard_retries_total', { protocol: 'chat', code: 'RATE_LIMIT' })).toBe(1);
  });
});
