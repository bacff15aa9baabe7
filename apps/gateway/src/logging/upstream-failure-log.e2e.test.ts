import { scenario } from '@turnguard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../testing/gateway-harness.test-helper.js';
import { captureLog, type LogLine } from '../testing/captured-log.test-helper.js';
import { REQUEST_ID_HEADER } from './request-id.js';

// R12.3: each upstream failure is logged when it happens, with attempt, wait, upstream host and code;
// R8.11: the access line carries the request id, the upstream host and the known tokens only (R5.1).
let harness: Harness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

function postChat(h: Harness, stream: boolean): Promise<Response> {
  return fetch(`${h.openAiBaseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-client' },
    body: JSON.stringify({ model: 'gpt-test', stream, messages: [{ role: 'user', content: 'hi' }] }),
  });
}

describe('R12.3 upstream failures in the log', () => {
  it('each retried failure is written before the next attempt is sent, with attempt, wait, host, status and code', async () => {
    // What the upstream had received when each line was written: a line written at the turn's end would see all 3.
    const requestsWhenWritten = new Map<LogLine, number>();
    const log = captureLog((line) => requestsWhenWritten.set(line, harness?.upstream.requests.length ?? -1));
    harness = await startHarness({ logDestination: log.destination, retry: { initialDelayMs: 20, maxDelayMs: 20 } });
    harness.upstream.chat.enqueue(scenario.chat().httpError(500), scenario.chat().httpError(503), scenario.chat().text('third time').usage({ input: 3, output: 2 }));
    const response = await postChat(harness, true);
    await response.text();
    const lines = await log.waitFor('request', 1);
    const failures = lines.filter((line) => line.level === 40);
    const host = new URL(harness.upstream.baseUrl).host;
    expect(failures.map(({ msg, requestId, upstream, segment, attempt, status, code, route, model }) => ({ msg, requestId, upstream, segment, attempt, status, code, route, model }))).toEqual([
      { msg: 'upstream request failed; retrying', requestId: response.headers.get(REQUEST_ID_HEADER), upstream: host, segment: 1, attempt: 1, status: 500, code: 'SERVER', route: '/v1/chat/completions', model: 'gpt-test' },
      { msg: 'upstream request failed; retrying', requestId: response.headers.get(REQUEST_ID_HEADER), upstream: host, segment: 1, attempt: 2, status: 503, code: 'OVERLOADED', route: '/v1/chat/completions', model: 'gpt-test' },
    ]);
    expect(failures.map((line) => requestsWhenWritten.get(line))).toEqual([1, 2]);
    for (const line of failures) {
      expect(line.retryInMs).toBeGreaterThanOrEqual(15);
      expect(line.attemptId).toEqual(expect.any(String));
    }
    // The attempt ids are the ones the upstream saw in x-request-id (R4.6), so a line can be matched to the upstream's logs.
    expect(failures.map((line) => line.attemptId)).toEqual(harness.upstream.requests.slice(0, 2).map((request) => request.headers['x-request-id']));
    expect(lines.find((line) => line.msg === 'request')).toMatchObject({ physicalRequests: 3, outcome: 'OK', upstream: host, tokens: { inputTokens: 3, outputTokens: 2 }, usageComplete: true });
  });

  it('a failure nobody retries is logged once, at the turn’s end, with the status; retried ones are not logged twice', async () => {
    const log = captureLog();
    harness = await startHarness({ logDestination: log.destination, retry: { maxRetries: 1, initialDelayMs: 1, maxDelayMs: 1 } });
    harness.upstream.chat.enqueue(scenario.chat().httpError(500), scenario.chat().httpError(500));
    const response = await postChat(harness, false);
    expect(response.status).toBe(500);
    await response.text();
    const lines = await log.waitFor('request', 1);
    expect(lines.filter((line) => line.level === 40).map(({ msg, attempt, status, code }) => ({ msg, attempt, status, code }))).toEqual([
      { msg: 'upstream request failed; retrying', attempt: 1, status: 500, code: 'SERVER' },
      { msg: 'upstream request failed', attempt: 2, status: 500, code: 'SERVER' },
    ]);
    expect(lines.find((line) => line.msg === 'request')).toMatchObject({ physicalRequests: 2, outcome: 'SERVER', status: 500 });
  });

  it('at --log-level warn the failure nobody retried is still logged at the turn’s end, with no request line', async () => {
    const log = captureLog();
    harness = await startHarness({ logDestination: log.destination, logLevel: 'warn', retry: { maxRetries: 1, initialDelayMs: 1, maxDelayMs: 1 } });
    harness.upstream.chat.enqueue(scenario.chat().httpError(500), scenario.chat().httpError(500));
    const response = await postChat(harness, false);
    expect(response.status).toBe(500);
    await response.text();
    const lines = await log.waitFor('upstream request failed', 1);
    expect(lines.map(({ msg, attempt, status, code }) => ({ msg, attempt, status, code }))).toEqual([
      { msg: 'upstream request failed; retrying', attempt: 1, status: 500, code: 'SERVER' },
      { msg: 'upstream request failed', attempt: 2, status: 500, code: 'SERVER' },
    ]);
  });

  it('R5.1: tokens the upstream did not report are absent from the access line, never 0; usageComplete says so', async () => {
    const log = captureLog();
    harness = await startHarness({ logDestination: log.destination });
    harness.upstream.chat.enqueue(scenario.chat().text('no usage at all'));
    await (await postChat(harness, true)).text();
    const line = (await log.waitFor('request', 1)).find((entry) => entry.msg === 'request');
    expect(line).toMatchObject({ tokens: {}, usageComplete: false });
  });
});
