import type { Protocol } from '@turnguard/core';
import { fault } from '@turnguard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AFTER_OUTPUT_RECORDS,
  BEFORE_OUTPUT_RECORDS,
  FULL_DEFAULT_ANSWER,
  MODES,
  TEXT_BEFORE_CUT,
  TEXT_BEFORE_FAULT,
  PROTOCOLS,
  answerFrom,
  catalogueSettings,
  startFailoverHarness,
  type ClientOutcome,
  type FailoverHarness,
  type Mode,
} from './testing/failover-harness.test-helper.js';

/**
 * R11's fault catalogue through the gateway with the official SDKs, on all
 * three protocols, streaming and JSON: each row asserts the requests the
 * upstream saw per model, the time the client waited, and exactly what the
 * client's SDK gave it. `npm test` runs it with short limits; `npm run
 * test:failover-defaults` with the gateway's defaults (same rules, real time).
 */
const settings = catalogueSettings();
const cases = PROTOCOLS.flatMap((protocol) => MODES.map((mode) => [protocol, mode] as const));
const DEFAULT_RUN = settings.name === 'defaults';
// The defaults run waits out real limits (up to two minutes a row); its rows run side by side.
const row = DEFAULT_RUN ? describe.concurrent : describe;
const timeout = DEFAULT_RUN ? 300_000 : 20_000;

let harness: FailoverHarness;
beforeAll(async () => {
  harness = await startFailoverHarness(settings);
});
afterAll(async () => {
  await harness.close();
});

let serial = 0;
/** Unique model names per case: the primary and the fallback the request names in `x-turnguard-fallbacks`. */
function models(name: string, protocol: Protocol, mode: Mode): { primary: string; fallback: string } {
  serial += 1;
  const id = `${name}-${protocol}-${mode}-${serial}`;
  return { primary: `p-${id}`, fallback: `b-${id}` };
}

function attempts(primary: string, fallback: string): [number, number] {
  return [harness.upstream.requestsFor(primary).length, harness.upstream.requestsFor(fallback).length];
}

function expectAnswer(outcome: ClientOutcome, text: string, model: string): void {
  expect(outcome.error).toBeUndefined();
  expect(outcome.text).toBe(text);
  expect(outcome.model).toBe(model);
}

/**
 * A failure after part of the answer reached a streaming client (R8.3,
 * R8.10): exactly the text the upstream sent before the fault, then the
 * error naming its code. (A JSON client was shown nothing: its rows restart
 * the answer, decision 0430.)
 */
function expectCutAfterOutput(outcome: ClientOutcome, streamed: { text: string; message: string }): void {
  expect(outcome.error?.message).toContain(streamed.message);
  expect(outcome.text).toBe(streamed.text);
}

/** R8.10's final in-stream error after output: plain words, turnguard's code, never "resend". */
const FINAL_AFTER_OUTPUT = (code: string): string =>
  `The turn failed after part of its answer had reached the client (${code}). It is final: the gateway already retried and recovered what it could, and sending the same request again would run the whole turn again.`;

/**
 * A fault after output with a fallback configured: a streaming client keeps what it read and gets a
 * final error, never a resend (it would repeat the answer); a JSON client was shown nothing, so the
 * broken answer is dropped and the fallback's is whole (R11.2, decision 0430).
 */
function expectFaultAfterOutput(outcome: ClientOutcome, mode: Mode, pair: { primary: string; fallback: string }, streamed: { text: string; code: string }): void {
  if (mode === 'json') {
    expectAnswer(outcome, 'Answer from fallback.', pair.fallback);
    expect(attempts(pair.primary, pair.fallback)).toEqual([1, 1]);
  } else {
    expectCutAfterOutput(outcome, { text: streamed.text, message: FINAL_AFTER_OUTPUT(streamed.code) });
    expect(attempts(pair.primary, pair.fallback)).toEqual([1, 0]);
  }
}

/** What a retried turn costs at least (one backoff) and at most (the bound). */
function expectOneBackoff(outcome: ClientOutcome): void {
  expect(outcome.ms).toBeGreaterThanOrEqual(settings.firstBackoffMs - 5);
  expect(outcome.ms).toBeLessThan(settings.turnBoundMs);
}

row.each(cases)('R11 fault catalogue (%s, %s)', (protocol, mode) => {
  it('429 with Retry-After, once: the wait is honoured, the same model answers', { timeout }, async () => {
    const { primary, fallback } = models('429-ra-once', protocol, mode);
    harness.upstream.model(primary).queue(fault.rateLimited({ retryAfterMs: settings.retryAfterMs })).always(answerFrom('primary'));
    const outcome = await harness.ask(protocol, mode, primary, { fallbacks: [fallback] });
    expectAnswer(outcome, 'Answer from primary.', primary);
    expect(attempts(primary, fallback)).toEqual([2, 0]);
    expect(outcome.ms).toBeGreaterThanOrEqual(settings.retryAfterMs - 20);
    const [first, second] = harness.upstream.requestsFor(primary);
    expect(second!.time - first!.time).toBeGreaterThanOrEqual(settings.retryAfterMs - 20);
  });

  it('429 with Retry-After, persistent: three tries, then the fallback answers', { timeout }, async () => {
    const { primary, fallback } = models('429-ra-persistent', protocol, mode);
    harness.upstream.model(primary).always(fault.rateLimited({ retryAfterMs: settings.retryAfterMs }));
    harness.upstream.model(fallback).always(answerFrom('fallback'));
    const outcome = await harness.ask(protocol, mode, primary, { fallbacks: [fallback] });
    expectAnswer(outcome, 'Answer from fallback.', fallback);
    expect(attempts(primary, fallback)).toEqual([3, 1]);
    expect(outcome.ms).toBeGreaterThanOrEqual(2 * settings.retryAfterMs - 40);
    expect(outcome.ms).toBeLessThan(settings.turnBoundMs);
  });

  it('429 with a Retry-After longer than the budget waits: not waited for, the fallback answers at once', { timeout }, async () => {
    const { primary, fallback } = models('429-ra-long', protocol, mode);
    harness.upstream.model(primary).always(fault.rateLimited({ retryAfterMs: settings.retryAfterTooLongMs }));
    harness.upstream.model(fallback).always(answerFrom('fallback'));
    const outcome = await harness.ask(protocol, mode, primary, { fallbacks: [fallback] });
    expectAnswer(outcome, 'Answer from fallback.', fallback);
    expect(attempts(primary, fallback)).toEqual([1, 1]);
    expect(outcome.ms).toBeLessThan(settings.atOnceMs);
  });

  it('429 without Retry-After, once: one backoff, the same model answers', { timeout }, async () => {
    const { primary, fallback } = models('429-once', protocol, mode);
    harness.upstream.model(primary).queue(fault.rateLimited()).always(answerFrom('primary'));
    const outcome = await harness.ask(protocol, mode, primary, { fallbacks: [fallback] });
    expectAnswer(outcome, 'Answer from primary.', primary);
    expect(attempts(primary, fallback)).toEqual([2, 0]);
    expectOneBackoff(outcome);
  });

  it('429 without Retry-After, persistent, no fallback: the budget\'s attempts, then the 429 as the upstream sent it, well inside the bound', { timeout }, async () => {
    const { primary } = models('429-persistent', protocol, mode);
    harness.upstream.model(primary).always(fault.rateLimited());
    const outcome = await harness.ask(protocol, mode, primary, { fallbacks: [] });
    expect(outcome.error?.status).toBe(429);
    expect(outcome.text).toBe('');
    expect(harness.upstream.requestsFor(primary)).toHaveLength(settings.attemptsWithoutFallback);
    expect(outcome.ms).toBeGreaterThanOrEqual(settings.firstBackoffMs * (settings.attemptsWithoutFallback - 1) - 10);
    expect(outcome.ms).toBeLessThan(settings.turnBoundMs);
  });

  it('500 once: retried, the same model answers', { timeout }, async () => {
    const { primary, fallback } = models('500-once', protocol, mode);
    harness.upstream.model(primary).queue(fault.serverError()).always(answerFrom('primary'));
    const outcome = await harness.ask(protocol, mode, primary, { fallbacks: [fallback] });
    expectAnswer(outcome, 'Answer from primary.', primary);
    expect(attempts(primary, fallback)).toEqual([2, 0]);
    expectOneBackoff(outcome);
  });

  it('503 persistent: three consecutive failures fail over, well inside the bound', { timeout }, async () => {
    const { primary, fallback } = models('503-persistent', protocol, mode);
    harness.upstream.model(primary).always(fault.unavailable());
    harness.upstream.model(fallback).always(answerFrom('fallback'));
    const outcome = await harness.ask(protocol, mode, primary, { fallbacks: [fallback] });
    expectAnswer(outcome, 'Answer from fallback.', fallback);
    expect(attempts(primary, fallback)).toEqual([3, 1]);
    // Two backoffs (the second doubled) before the third try; the fallback without one.
    expect(outcome.ms).toBeGreaterThanOrEqual(3 * settings.firstBackoffMs - 10);
    expect(outcome.ms).toBeLessThan(settings.turnBoundMs);
  });

  it('reset before headers, once: retried, the same model answers', { timeout }, async () => {
    const { primary, fallback } = models('reset', protocol, mode);
    harness.upstream.model(primary).queue(fault.resetBeforeHeaders()).always(answerFrom('primary'));
    const outcome = await harness.ask(protocol, mode, primary, { fallbacks: [fallback] });
    expectAnswer(outcome, 'Answer from primary.', primary);
    expect(attempts(primary, fallback)).toEqual([2, 0]);
    expectOneBackoff(outcome);
  });

  it('no response at all: the header limit fires once and the silent route is failed over, not retried', { timeout }, async () => {
    const { primary, fallback } = models('no-answer', protocol, mode);
    harness.upstream.model(primary).always(fault.noAnswer());
    harness.upstream.model(fallback).always(answerFrom('fallback'));
    const outcome = await harness.ask(protocol, mode, primary, { fallbacks: [fallback] });
    expectAnswer(outcome, 'Answer from fallback.', fallback);
    expect(attempts(primary, fallback)).toEqual([1, 1]);
    expect(outcome.ms).toBeGreaterThanOrEqual(settings.headersMs - 20);
    expect(outcome.ms).toBeLessThan(settings.headersMs + settings.turnBoundMs);
  });

  it('slow first token: the first-token limit fires, the fallback answers', { timeout }, async () => {
    const { primary, fallback } = models('slow-first', protocol, mode);
    harness.upstream.model(primary).always(fault.slowFirstToken(settings.slowFirstTokenMs));
    harness.upstream.model(fallback).always(answerFrom('fallback'));
    const outcome = await harness.ask(protocol, mode, primary, { fallbacks: [fallback] });
    expectAnswer(outcome, 'Answer from fallback.', fallback);
    expect(attempts(primary, fallback)).toEqual([1, 1]);
    expect(outcome.ms).toBeGreaterThanOrEqual(settings.firstTokenMs - 20);
    expect(outcome.ms).toBeLessThan(settings.slowFirstTokenMs);
  });

  it('cut mid-answer: streaming, never resent (it would repeat the answer); JSON, the fallback answers from scratch', { timeout }, async () => {
    const { primary, fallback } = models('cut', protocol, mode);
    harness.upstream.model(primary).always(fault.cut());
    harness.upstream.model(fallback).always(answerFrom('fallback'));
    const outcome = await harness.ask(protocol, mode, primary, { fallbacks: [fallback] });
    expectFaultAfterOutput(outcome, mode, { primary, fallback }, { text: TEXT_BEFORE_CUT[protocol], code: 'STREAM_CUT' });
    expect(outcome.ms).toBeLessThan(settings.atOnceMs);
  });

  it('stall after output: the stall limit ends it; streaming, never resent; JSON, the fallback answers from scratch', { timeout }, async () => {
    const { primary, fallback } = models('stall-after', protocol, mode);
    harness.upstream.model(primary).always(fault.stall(AFTER_OUTPUT_RECORDS[protocol]));
    harness.upstream.model(fallback).always(answerFrom('fallback'));
    const outcome = await harness.ask(protocol, mode, primary, { fallbacks: [fallback] });
    expectFaultAfterOutput(outcome, mode, { primary, fallback }, { text: TEXT_BEFORE_FAULT[protocol], code: 'STREAM_STALL' });
    expect(outcome.ms).toBeGreaterThanOrEqual(settings.stallAfterMs - 20);
    expect(outcome.ms).toBeLessThan(settings.stallBeforeMs);
  });

  it('stall before output: failed over at once', { timeout }, async () => {
    const { primary, fallback } = models('stall-before', protocol, mode);
    harness.upstream.model(primary).always(fault.stall(BEFORE_OUTPUT_RECORDS[protocol]));
    harness.upstream.model(fallback).always(answerFrom('fallback'));
    const outcome = await harness.ask(protocol, mode, primary, { fallbacks: [fallback] });
    expectAnswer(outcome, 'Answer from fallback.', fallback);
    expect(attempts(primary, fallback)).toEqual([1, 1]);
    expect(outcome.ms).toBeGreaterThanOrEqual(settings.stallBeforeMs - 20);
    expect(outcome.ms).toBeLessThan(settings.stallBeforeMs + settings.atOnceMs);
  });

  it('malformed event mid-answer: never relayed; streaming, the client gets what came and a final error; JSON, the fallback answers from scratch', { timeout }, async () => {
    const { primary, fallback } = models('malformed', protocol, mode);
    harness.upstream.model(primary).always(fault.malformed(AFTER_OUTPUT_RECORDS[protocol]));
    harness.upstream.model(fallback).always(answerFrom('fallback'));
    const outcome = await harness.ask(protocol, mode, primary, { fallbacks: [fallback] });
    expectFaultAfterOutput(outcome, mode, { primary, fallback }, { text: TEXT_BEFORE_FAULT[protocol], code: 'STREAM_CUT' });
    expect(outcome.ms).toBeLessThan(settings.atOnceMs);
  });

  // A JSON client shown nothing, with nowhere to go: the answer restarts on the same model within the budget (R11.3), then
  // the failure as a direct client would read it (decision 0430). A stall waits out its limit each time: the defaults' 60 s
  // stall leaves no retry inside the 20 s retry window.
  const NO_FALLBACK_FAULTS = [
    { name: 'cut mid-answer', fault: () => fault.cut(), waitsMs: () => 0, attempts: () => settings.attemptsWithoutFallback },
    { name: 'stall after output', fault: () => fault.stall(AFTER_OUTPUT_RECORDS[protocol]), waitsMs: () => settings.stallAfterMs, attempts: () => (DEFAULT_RUN ? 1 : settings.attemptsWithoutFallback) },
    { name: 'malformed event mid-answer', fault: () => fault.malformed(AFTER_OUTPUT_RECORDS[protocol]), waitsMs: () => 0, attempts: () => settings.attemptsWithoutFallback },
  ];
  // A streaming client keeps what it read: these rows are the JSON client's only (the stream rows above cover streams).
  for (const each of mode === 'json' ? NO_FALLBACK_FAULTS : []) {
    it(`${each.name}, no fallback, JSON: restarted within the budget, then a clean 502`, { timeout }, async () => {
      const { primary } = models(`${each.name.split(' ')[0]}-alone`, protocol, mode);
      harness.upstream.model(primary).always(each.fault());
      const outcome = await harness.ask(protocol, mode, primary, { fallbacks: [] });
      expect(outcome.error?.status).toBe(502);
      expect(outcome.text).toBe('');
      expect(harness.upstream.requestsFor(primary)).toHaveLength(each.attempts());
      expect(outcome.ms).toBeGreaterThanOrEqual(each.waitsMs() * each.attempts() - 20);
      expect(outcome.ms).toBeLessThan(settings.turnBoundMs + each.waitsMs() * each.attempts());
    });
  }

  it('malformed event before output: failed over at once', { timeout }, async () => {
    const { primary, fallback } = models('malformed-before', protocol, mode);
    harness.upstream.model(primary).always(fault.malformed(BEFORE_OUTPUT_RECORDS[protocol]));
    harness.upstream.model(fallback).always(answerFrom('fallback'));
    const outcome = await harness.ask(protocol, mode, primary, { fallbacks: [fallback] });
    expectAnswer(outcome, 'Answer from fallback.', fallback);
    expect(attempts(primary, fallback)).toEqual([1, 1]);
    expect(outcome.ms).toBeLessThan(settings.atOnceMs);
  });

  it('a complete stream without its final sentinel is complete (R8.12, R8.13)', { timeout }, async () => {
    const { primary, fallback } = models('no-sentinel', protocol, mode);
    harness.upstream.model(primary).always(fault.noSentinel());
    const outcome = await harness.ask(protocol, mode, primary, { fallbacks: [fallback] });
    expectAnswer(outcome, FULL_DEFAULT_ANSWER, primary);
    expect(attempts(primary, fallback)).toEqual([1, 0]);
    expect(outcome.ms).toBeLessThan(settings.atOnceMs);
  });

  it('context-length 400: the same model is never retried; the next one answers at once', { timeout }, async () => {
    const { primary, fallback } = models('context', protocol, mode);
    harness.upstream.model(primary).always(fault.contextLength());
    harness.upstream.model(fallback).always(answerFrom('fallback'));
    const outcome = await harness.ask(protocol, mode, primary, { fallbacks: [fallback] });
    expectAnswer(outcome, 'Answer from fallback.', fallback);
    expect(attempts(primary, fallback)).toEqual([1, 1]);
    expect(outcome.ms).toBeLessThan(settings.atOnceMs);
  });

  it('content filter: reaches the client as it is, never another model', { timeout }, async () => {
    const { primary, fallback } = models('filter', protocol, mode);
    harness.upstream.model(primary).always(fault.contentFilter());
    harness.upstream.model(fallback).always(answerFrom('fallback'));
    const outcome = await harness.ask(protocol, mode, primary, { fallbacks: [fallback] });
    expect(attempts(primary, fallback)).toEqual([1, 0]);
    expect(outcome.ms).toBeLessThan(settings.atOnceMs);
    if (protocol === 'messages') {
      // Anthropic refuses with a complete answer (`stop_reason: "refusal"`), relayed as it came.
      expect(outcome.error).toBeUndefined();
      expect(outcome.text).toBe('I can’t help with that.');
    } else {
      expect(outcome.error?.status).toBe(400);
      expect(outcome.error?.message).toBe("400 The response was filtered due to the prompt triggering Azure OpenAI's content management policy.");
    }
  });
});
