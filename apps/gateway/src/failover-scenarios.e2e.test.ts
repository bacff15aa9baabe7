import type { Protocol } from '@turnguard/core';
import { fault, scenario } from '@turnguard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLog } from './testing/captured-log.test-helper.js';
import { metricValue } from './testing/metric-value.test-helper.js';
import { FULL_DEFAULT_ANSWER, MODES, PROTOCOLS, answerFrom, catalogueSettings, prefillOf, restOfDefaultAnswer, startFailoverHarness, type FailoverHarness, type Mode } from './testing/failover-harness.test-helper.js';

/**
 * The catalogue rows that need more than one model of one family: a
 * fallback of another family, a fail-over after relayed thinking, mid-answer
 * continuation and a fallback that refuses its prefill, a primary down for a
 * minute then healthy, and the accounting of a fail-over (R11.1, R11.5–R11.7).
 */
const settings = catalogueSettings();
const cases = PROTOCOLS.flatMap((protocol) => MODES.map((mode) => [protocol, mode] as const));
const timeout = settings.name === 'defaults' ? 300_000 : 20_000;
/** Another family for each client protocol, where its fallback lives. */
const OTHER: Record<Protocol, Protocol> = { chat: 'messages', messages: 'chat', responses: 'messages' };
const id = (protocol: Protocol, mode: Mode): string => `${protocol}-${mode}`;
/** A whole answer's end as each protocol names it. */
const OWN_FINISH: Record<Protocol, string> = { chat: 'stop', messages: 'end_turn', responses: 'completed' };
/** An answer cut by its output cap, as each protocol names it. */
const TRUNCATED: Record<Protocol, string> = { chat: 'length', messages: 'max_tokens', responses: 'incomplete' };
/** An answer that ends by calling a tool, as each protocol names it. */
const TOOL_CALL_END: Record<Protocol, string> = { chat: 'tool_calls', messages: 'tool_use', responses: 'completed' };

describe('R11.1 a fallback of another protocol family answers in the client\'s own protocol', () => {
  let harness: FailoverHarness;
  beforeAll(async () => {
    harness = await startFailoverHarness(settings, ({ url, baseUrl }) => ({
      routing: {
        upstreams: {
          'other-chat': { protocol: 'chat', baseUrl, apiKey: { env: 'OPENAI_API_KEY' } },
          'other-messages': { protocol: 'messages', baseUrl: url, apiKey: { env: 'ANTHROPIC_API_KEY' } },
        },
        models: Object.fromEntries(
          cases.flatMap(([protocol, mode]) => [
            [`x-${id(protocol, mode)}`, { upstream: `other-${OTHER[protocol]}` }],
            [`xl-${id(protocol, mode)}`, { upstream: `other-${OTHER[protocol]}` }],
            [`xt-${id(protocol, mode)}`, { upstream: `other-${OTHER[protocol]}` }],
          ]),
        ),
      },
    }));
  });
  afterAll(async () => harness?.close());

  it.each(cases)('%s client, %s: a context-length 400, then another family\'s answer, read by the client\'s SDK', { timeout }, async (protocol, mode) => {
    const fallback = `x-${id(protocol, mode)}`;
    const primary = `p-cross-${id(protocol, mode)}`;
    harness.upstream.model(primary).always(fault.contextLength());
    harness.upstream.model(fallback).always(answerFrom('another family'));
    const outcome = await harness.ask(protocol, mode, primary, { fallbacks: [fallback] });
    expect(outcome.error).toBeUndefined();
    expect(outcome.text).toBe('Answer from another family.');
    expect(outcome.model).toBe(fallback);
    // Why it ended, in the client's own protocol's words: never the other family's (`end_turn` is no Chat finish_reason).
    expect(outcome.finish).toBe(OWN_FINISH[protocol]);
    expect(outcome.ms).toBeLessThan(settings.atOnceMs);
    const [request] = harness.upstream.requestsFor(fallback);
    expect(request?.protocol).toBe(OTHER[protocol]);
    // None of the client protocol's own headers, and never the gateway's own.
    expect(Object.keys(request!.headers).filter((name) => name.startsWith('anthropic-') || name.startsWith('x-stainless') || name === 'x-turnguard-fallbacks')).toEqual(
      OTHER[protocol] === 'messages' ? ['anthropic-version'] : [],
    );
  });

  it.each(cases)('%s client, %s: another family\'s answer cut by its output cap reads as truncated in the client\'s own words', { timeout }, async (protocol, mode) => {
    const fallback = `xl-${id(protocol, mode)}`;
    const primary = `p-cross-length-${id(protocol, mode)}`;
    harness.upstream.model(primary).always(fault.contextLength());
    // The fallback's own word for it: Anthropic's max_tokens, Chat's length.
    harness.upstream.model(fallback).always(fault.ok((p) => scenario.for(p).text('Cut short by the cap').finish((p === 'messages' ? 'max_tokens' : 'length') as never)));
    const outcome = await harness.ask(protocol, mode, primary, { fallbacks: [fallback] });
    expect(outcome.error).toBeUndefined();
    expect(outcome.text).toBe('Cut short by the cap');
    expect(outcome.finish).toBe(TRUNCATED[protocol]);
  });

  it.each(cases)('%s client, %s: another family\'s tool call ends the answer as a tool call in the client\'s own words', { timeout }, async (protocol, mode) => {
    const fallback = `xt-${id(protocol, mode)}`;
    const primary = `p-cross-tool-${id(protocol, mode)}`;
    harness.upstream.model(primary).always(fault.contextLength());
    harness.upstream.model(fallback).always(fault.ok((p) => scenario.for(p).text('Let me look.').toolCall('lookup', { q: 'weather' })));
    const outcome = await harness.ask(protocol, mode, primary, { fallbacks: [fallback] });
    expect(outcome.error).toBeUndefined();
    expect(outcome.text).toBe('Let me look.');
    expect(outcome.finish).toBe(TOOL_CALL_END[protocol]);
  });
});

describe('R11.2 a fail-over after relayed thinking is spliced into one valid stream (R8.7)', () => {
  let harness: FailoverHarness;
  beforeAll(async () => {
    // R4's recovery would take this cut first; with it off, the chain does.
    harness = await startFailoverHarness(settings, { streamRecovery: false });
  });
  afterAll(async () => harness?.close());

  it.each(PROTOCOLS)('%s: thinking, a cut, then the fallback\'s answer in the same response', { timeout }, async (protocol) => {
    const primary = `p-think-${protocol}`;
    const fallback = `b-think-${protocol}`;
    // (Usage as every provider sends it: Anthropic's message_start always carries it, and the SDK relies on it.)
    harness.upstream.model(primary).always(fault.ok((p) => scenario.for(p).reasoning('Let me weigh the options first.').usage({ input: 10, output: 8 }).eof()));
    harness.upstream.model(fallback).always(answerFrom('fallback'));
    const outcome = await harness.ask(protocol, 'stream', primary, { fallbacks: [fallback] });
    // The SDK's own accumulator read it: one message start, growing indices, one end.
    expect(outcome.error).toBeUndefined();
    expect(outcome.text).toBe('Answer from fallback.');
    // The response's opening frame, sent with the thinking, already named the first model (README, "What the client sees").
    expect(outcome.model).toBe(primary);
    expect([harness.upstream.requestsFor(primary).length, harness.upstream.requestsFor(fallback).length]).toEqual([1, 1]);
    expect(outcome.ms).toBeLessThan(settings.atOnceMs);
  });
});

describe('R11.6 mid-answer continuation (continuation: "prefill")', () => {
  let harness: FailoverHarness;
  beforeAll(async () => {
    harness = await startFailoverHarness(settings, ({ url, baseUrl }) => ({
      continuation: 'prefill',
      routing: {
        upstreams: {
          // A Chat server that continues a trailing assistant message (Groq, llama.cpp without thinking), and a
          // Messages upstream configured never to take a prefill.
          'prefill-chat': { protocol: 'chat', baseUrl, apiKey: { env: 'OPENAI_API_KEY' }, prefill: 'trailing-message' },
          'plain-messages': { protocol: 'messages', baseUrl: url, apiKey: { env: 'ANTHROPIC_API_KEY' }, prefill: false },
        },
        models: Object.fromEntries(
          cases.flatMap(([protocol, mode]) => [
            [`continuer-${id(protocol, mode)}`, { upstream: 'prefill-chat' }],
            [`refuser-${id(protocol, mode)}`, { upstream: 'prefill-chat' }],
            [`p-refused-${id(protocol, mode)}`, { upstream: protocol === 'messages' ? 'plain-messages' : protocol }],
            [`p-restart-${id(protocol, mode)}`, { upstream: protocol === 'messages' ? 'plain-messages' : protocol }],
          ]),
        ),
      },
    }));
  });
  afterAll(async () => harness?.close());

  it.each(cases)('%s, %s: a cut mid-answer is continued and the client reads one whole answer', { timeout }, async (protocol, mode) => {
    const primary = `p-cont-${id(protocol, mode)}`;
    const fallback = `continuer-${id(protocol, mode)}`;
    const rest = fault.ok((p) => scenario.for(p).text('unexpected second answer').usage({ input: 30, output: 5 }));
    const continuation = restOfDefaultAnswer;
    // Anthropic's own API continues a final assistant message: a Messages primary continues itself;
    // the OpenAI families' own upstreams do not, so the prefill-capable fallback continues.
    if (protocol === 'messages') harness.upstream.model(primary).queue(fault.cut(), continuation);
    else {
      harness.upstream.model(primary).queue(fault.cut());
      harness.upstream.model(fallback).queue(continuation).always(rest);
    }
    const outcome = await harness.ask(protocol, mode, primary, { fallbacks: [fallback] });
    expect(outcome.error).toBeUndefined();
    expect(outcome.text).toBe(FULL_DEFAULT_ANSWER);
    expect(outcome.ms).toBeLessThan(settings.atOnceMs);
    const continued = protocol === 'messages' ? harness.upstream.requestsFor(primary)[1] : harness.upstream.requestsFor(fallback)[0];
    expect(harness.upstream.requestsFor(primary)).toHaveLength(protocol === 'messages' ? 2 : 1);
    expect(harness.upstream.requestsFor(fallback)).toHaveLength(protocol === 'messages' ? 0 : 1);
    // The prefill: the answer so far, trailing whitespace removed, as the last (assistant) message; tools off.
    const messages = (continued!.body as { messages: Array<{ role: string }> }).messages;
    expect(messages.at(-1)?.role).toBe('assistant');
    const prefill = prefillOf(continued!.body);
    expect(prefill.length).toBeGreaterThan(0);
    expect(prefill).toBe(prefill.trimEnd());
    expect(FULL_DEFAULT_ANSWER.startsWith(prefill) && prefill !== FULL_DEFAULT_ANSWER).toBe(true);
    const sample = harness.sink.samples.find((each) => (each as { continuation?: boolean }).continuation === true && each.model === (protocol === 'messages' ? primary : fallback));
    expect(sample).toBeDefined();
  });

  it.each(PROTOCOLS)('%s, json: no target takes a prefill: the cut answer is restarted, and the client gets it whole (R11.2)', { timeout }, async (protocol) => {
    const primary = `p-restart-${id(protocol, 'json')}`;
    harness.upstream.model(primary).queue(fault.cut(), answerFrom('the restart'));
    const outcome = await harness.ask(protocol, 'json', primary);
    expect(outcome.error).toBeUndefined();
    expect(harness.upstream.requestsFor(primary)).toHaveLength(2);
    // A restart, not a continuation: the second request is the first one again, with no prefill of the cut answer.
    const [first, second] = harness.upstream.requestsFor(primary);
    expect(second!.body).toEqual(first!.body);
    expect(outcome.text).toBe('Answer from the restart.');
  });

  it.each(PROTOCOLS)('%s, stream: a fallback that refuses the prefill: the client gets the original cut, never the prefill 400', { timeout }, async (protocol) => {
    const primary = `p-refused-${id(protocol, 'stream')}`;
    const fallback = `refuser-${id(protocol, 'stream')}`;
    harness.upstream.model(primary).always(fault.cut());
    harness.upstream.model(fallback).always(fault.prefillRefused());
    const outcome = await harness.ask(protocol, 'stream', primary, { fallbacks: [fallback] });
    expect([harness.upstream.requestsFor(primary).length, harness.upstream.requestsFor(fallback).length]).toEqual([1, 1]);
    expect(outcome.ms).toBeLessThan(settings.atOnceMs);
    expect(outcome.error).toBeDefined();
    // The original cut's error (the stream failed after output), never the refusal's words.
    expect(outcome.error?.message).not.toMatch(/prefill|conversation must end/i);
    expect(outcome.error?.message).toMatch(/STREAM_CUT|failed after output/);
    expect(FULL_DEFAULT_ANSWER.startsWith(outcome.text) && outcome.text.length > 0).toBe(true);
  });

  it.each(PROTOCOLS)('%s, json: a fallback that refuses the prefill: the cut answer is dropped and the fallback answers it afresh (R11.2)', { timeout }, async (protocol) => {
    const primary = `p-refused-${id(protocol, 'json')}`;
    const fallback = `refuser-${id(protocol, 'json')}`;
    harness.upstream.model(primary).always(fault.cut());
    harness.upstream.model(fallback).queue(fault.prefillRefused()).always(answerFrom('the fallback'));
    const outcome = await harness.ask(protocol, 'json', primary, { fallbacks: [fallback] });
    expect(outcome.error).toBeUndefined();
    expect(outcome.text).toBe('Answer from the fallback.');
    expect([harness.upstream.requestsFor(primary).length, harness.upstream.requestsFor(fallback).length]).toEqual([1, 2]);
    // The refused continuation ended with the answer so far; the fresh request with the client's own message.
    const roles = harness.upstream.requestsFor(fallback).map((request) => (request.body as { messages: Array<{ role: string }> }).messages.at(-1)?.role);
    expect(roles).toEqual(['assistant', 'user']);
    expect(outcome.ms).toBeLessThan(settings.atOnceMs);
  });
});

describe('R11.5 a primary down for a minute, then healthy: 20 requests, one every 4 s', () => {
  let harness: FailoverHarness;
  // Short run: the cool-down does not grow, so the probes show the recovery within the 80 s.
  const circuit = settings.name === 'short' ? { circuitBreaker: { failureThreshold: 5, coolDownMs: 20_000, maxCoolDownMs: 20_000 } } : {};
  beforeAll(async () => {
    harness = await startFailoverHarness(settings, circuit);
  });
  afterAll(async () => harness?.close());

  it.each(cases)('%s, %s: every request is answered; the open circuit spares the primary; the primary answers again after a probe', { timeout: settings.name === 'defaults' ? 600_000 : 60_000 }, async (protocol, mode) => {
    const primary = `p-down-${id(protocol, mode)}`;
    const fallback = `b-down-${id(protocol, mode)}`;
    harness.upstream.model(primary).always(fault.downUntil(harness.now() + 60_000, fault.unavailable(), answerFrom('primary')));
    harness.upstream.model(fallback).always(answerFrom('fallback'));
    const answeredBy: string[] = [];
    const waited: number[] = [];
    for (let request = 0; request < 20; request += 1) {
      if (request > 0) harness.advance(4000);
      const outcome = await harness.ask(protocol, mode, primary, { fallbacks: [fallback] });
      expect(outcome.error).toBeUndefined();
      expect(outcome.text).toBe(outcome.model === primary ? 'Answer from primary.' : 'Answer from fallback.');
      // "Within seconds": at worst the budget's three tries before the circuit opens, never a wait for the primary.
      expect(outcome.ms).toBeLessThan(settings.turnBoundMs);
      answeredBy.push(outcome.model === primary ? 'P' : 'F');
      waited.push(outcome.ms);
    }
    const primaryRequests = harness.upstream.requestsFor(primary).length;
    if (settings.name === 'short') {
      // Opens during request 2 (5 failures in a row); probes at 24 s and 44 s fail, the one at 64 s closes it.
      expect(answeredBy.join('')).toBe('FFFFFFFFFFFFFFFFPPPP');
      expect(primaryRequests).toBe(3 + 2 + 1 + 1 + 4);
    } else {
      // Defaults: 30 s cool-down, doubled after the failed probe at ~32 s: the primary is next tried at ~92 s.
      expect(answeredBy.join('')).toBe('F'.repeat(20));
      expect(primaryRequests).toBe(3 + 2 + 1);
    }
    expect(harness.upstream.requestsFor(fallback)).toHaveLength(answeredBy.filter((who) => who === 'F').length);
    // Once the circuit is open, the fallback answers without a single try of the primary: no backoff at all.
    expect(Math.max(...waited.slice(2, 5))).toBeLessThan(settings.atOnceMs);
    expect(await metricValue(harness.gateway.metrics, 'turnguard_circuit_state', { upstream: protocol, state: settings.name === 'short' ? 'closed' : 'open' })).toBeGreaterThan(0);
  });
});

describe('R11.7 fail-over accounting', () => {
  let harness: FailoverHarness;
  const log = captureLog();
  beforeAll(async () => {
    harness = await startFailoverHarness(settings, { logDestination: log.destination });
  });
  afterAll(async () => harness?.close());

  it('each physical request is one sample with its model and the one it replaced; the turn names the answering model and its chain; metrics and the access line count it', { timeout }, async () => {
    harness.upstream.model('acct-primary').always(fault.unavailable());
    harness.upstream.model('acct-fallback').always(answerFrom('fallback'));
    const outcome = await harness.ask('messages', 'stream', 'acct-primary', { fallbacks: ['acct-fallback'] });
    expect(outcome.text).toBe('Answer from fallback.');
    expect(outcome.model).toBe('acct-fallback');
    expect(outcome.ms).toBeGreaterThanOrEqual(3 * settings.firstBackoffMs - 10);
    expect(outcome.ms).toBeLessThan(settings.turnBoundMs);
    await harness.sink.waitForTurns(1);
    const samples = harness.sink.samples.map((sample) => [sample.model, (sample as { fallbackFrom?: string }).fallbackFrom, sample.ok]);
    expect(samples).toEqual([
      ['acct-primary', undefined, false],
      ['acct-primary', undefined, false],
      ['acct-primary', undefined, false],
      ['acct-fallback', 'acct-primary', true],
    ]);
    const turn = harness.sink.turns.at(-1)!;
    expect(turn).toMatchObject({ model: 'acct-fallback', outcome: 'ok', physicalRequests: 4, fallbacks: 1, usage: { inputTokens: 10, outputTokens: 4 } });
    expect(turn.chain).toEqual([
      { upstream: 'messages', model: 'acct-primary', protocol: 'messages', outcome: 'failed', attempts: 3, errorCode: 'SERVER' },
      { upstream: 'messages', model: 'acct-fallback', protocol: 'messages', outcome: 'answered', attempts: 1 },
    ]);
    expect(await metricValue(harness.gateway.metrics, 'turnguard_fallbacks_total', { from_model: 'acct-primary', to_model: 'acct-fallback' })).toBe(1);
    // The header is the gateway's own: no upstream ever saw it.
    expect(harness.upstream.requests.some((request) => 'x-turnguard-fallbacks' in request.headers)).toBe(false);
    const line = (await log.waitFor('request', 1)).find((each) => each.msg === 'request');
    expect(line).toMatchObject({ answeredBy: 'acct-fallback', fallbacks: 1, continued: false, physicalRequests: 4, chain: ['messages/acct-primary:failed:SERVER', 'messages/acct-fallback:answered'] });
  });
});
