import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { scenario } from '@turnguard/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readSseRecords, startHarness, type Harness } from './testing/gateway-harness.test-helper.js';

/**
 * R8.10, decision 0360: once output went out, a stream's headers are long
 * gone and `x-should-retry: false` cannot reach the client, so the final
 * error frame itself must say "final" in the shape real clients stop on:
 * `invalid_request_error` for Chat (Qwen Code, opencode/the AI SDK) and
 * Messages (Claude Code), `invalid_prompt` for Responses (Codex) — with
 * turnguard's code kept and none of the words some clients read as
 * "resend" (server error, overloaded, 5xx numbers). A failure before any
 * output keeps its own shape: a resend later may well succeed.
 */
let harness: Harness;

beforeEach(async () => {
  harness = await startHarness({ retry: { maxRetries: 1, initialDelayMs: 1, maxDelayMs: 2 } });
});
afterEach(async () => {
  await harness.close();
});

const LONG_ANSWER = 'a partial answer of many words that the upstream cuts before its end, mid-way';
/** What opencode's and Qwen Code's retry rules match in an error's text (their sources, decision 0360). */
const RESEND_WORDS = /server[ _-]?error|overloaded|internal error|\b(?:500|502|503|504|529)\b|terminated|rate[ _-]?limit|unavailable|try again/i;

function post(path: string, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${harness.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer k', 'x-api-key': 'k' },
    body: JSON.stringify({ ...body, stream: true }),
  });
}

const chat = (): Promise<Response> => post('/v1/chat/completions', { model: 'm', messages: [{ role: 'user', content: 'q' }] });
const messages = (): Promise<Response> => post('/v1/messages', { model: 'm', max_tokens: 1000, messages: [{ role: 'user', content: 'q' }] });
const responses = (): Promise<Response> => post('/v1/responses', { model: 'm', input: 'q' });

describe('after output: the final shape', () => {
  it('chat: invalid_request_error with STREAM_CUT kept, then [DONE]', async () => {
    harness.upstream.chat.enqueue(scenario.chat().text(LONG_ANSWER).eof({ afterEvents: 7 }));
    const records = await readSseRecords(await chat());
    expect(records.at(-1)?.data).toBe('[DONE]');
    const { error } = JSON.parse(records.at(-2)!.data) as { error: Record<string, unknown> };
    expect(error).toMatchObject({ type: 'invalid_request_error', code: 'STREAM_CUT', param: null });
    expect(error.message).toMatch(/^The turn failed after part of its answer had reached the client \(STREAM_CUT\)\. It is final/);
    expect(JSON.stringify(error)).not.toMatch(RESEND_WORDS);
  });

  it('messages: event error with invalid_request_error', async () => {
    harness.upstream.messages.enqueue(scenario.messages().text(LONG_ANSWER).eof({ afterEvents: 7 }));
    const records = await readSseRecords(await messages());
    const last = records.at(-1)!;
    expect(last.event).toBe('error');
    const body = JSON.parse(last.data) as { type: string; error: { type: string; message: string } };
    expect(body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(body.error.message).toContain('(STREAM_CUT). It is final');
    expect(last.data).not.toMatch(RESEND_WORDS);
  });

  it('responses: error then response.failed, both with code invalid_prompt', async () => {
    harness.upstream.responses.enqueue(scenario.responses().text(LONG_ANSWER).eof({ afterEvents: 9 }));
    const records = await readSseRecords(await responses());
    const error = JSON.parse(records.find((record) => record.event === 'error')!.data) as { error: Record<string, unknown> };
    expect(error.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_prompt' });
    const failed = JSON.parse(records.at(-1)!.data) as { type: string; response: { status: string; error: Record<string, unknown> } };
    expect(failed).toMatchObject({ type: 'response.failed', response: { status: 'failed', error: { code: 'invalid_prompt' } } });
    expect(JSON.stringify(failed.response.error)).not.toMatch(RESEND_WORDS);
  });

  it('a recovery that is cut again ends the same way (after a recovery, R8.10)', async () => {
    harness.upstream.messages.enqueue(scenario.messages().reasoning(300).eof(), scenario.messages().text(LONG_ANSWER).eof({ afterEvents: 5 }));
    const records = await readSseRecords(await messages());
    expect(harness.upstream.requests).toHaveLength(2);
    expect(JSON.parse(records.at(-1)!.data)).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
  });

  it('the official SDKs still raise it as an APIError, with the code a host reads', async () => {
    harness.upstream.chat.enqueue(scenario.chat().text(LONG_ANSWER).eof({ afterEvents: 7 }));
    const openai = new OpenAI({ apiKey: 'k', baseURL: harness.openAiBaseUrl, maxRetries: 0 });
    const failure = await (async () => {
      for await (const _chunk of await openai.chat.completions.create({ model: 'm', stream: true, messages: [{ role: 'user', content: 'q' }] }));
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect(failure).toMatchObject({ code: 'STREAM_CUT', type: 'invalid_request_error' });

    harness.upstream.messages.enqueue(scenario.messages().text(LONG_ANSWER).eof({ afterEvents: 7 }));
    const anthropic = new Anthropic({ apiKey: 'k', baseURL: harness.url, maxRetries: 0 });
    const messageFailure = await anthropic.messages.stream({ model: 'm', max_tokens: 100, messages: [{ role: 'user', content: 'q' }] }).finalMessage().catch((error: unknown) => error);
    expect(messageFailure).toBeInstanceOf(Anthropic.APIError);
    expect(String((messageFailure as Error).message)).toContain('invalid_request_error');
  });
});

describe('before output: the failure keeps its own shape', () => {
  it('chat: an overload that outlasted the retries, after the stream opened, stays a server error', async () => {
    const overloaded = scenario.chat().streamError({ type: 'server_error', message: 'Overloaded' });
    harness.upstream.chat.enqueue(overloaded, overloaded);
    const records = await readSseRecords(await chat());
    expect(harness.upstream.requests).toHaveLength(2);
    const { error } = JSON.parse(records.at(-2)!.data) as { error: Record<string, unknown> };
    expect(error.type).toBe('server_error');
    expect(error.message).not.toContain('It is final');
  });
});
