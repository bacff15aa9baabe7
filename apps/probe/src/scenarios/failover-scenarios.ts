import type { Protocol } from '@turnguard/core';
import { scenario, type ScenarioBuilder, type ScenarioQueue } from '@turnguard/testkit/server';
import type { FailoverScenario, QueueContext } from '../probe-types.js';
import { buildAnswer } from './turn-scenarios.js';

/** The model every fail-over scenario falls back to, on the same mock. */
export const FALLBACK_MODEL = 'turnguard-probe-fallback';

function enqueue(context: QueueContext, protocol: Protocol, ...replies: ScenarioBuilder<Protocol>[]): void {
  (context.upstream[protocol] as ScenarioQueue<Protocol>).enqueue(...replies);
}

function unavailable(protocol: Protocol): ScenarioBuilder<Protocol> {
  return scenario.for(protocol).httpError(503);
}

/**
 * Where a continuation goes per protocol (decision 0401): Anthropic's API
 * continues a final assistant message; a Chat server with a prefill dialect
 * too; Responses has none, so a Responses turn continues on a Chat fallback.
 */
const CONTINUES_ON: Record<Protocol, Protocol> = { chat: 'chat', messages: 'messages', responses: 'chat' };

/** Records of each protocol's answer up to its first two text deltas (the stream's opening records, then the text). */
const FIRST_WORDS_RECORDS: Record<Protocol, number> = { chat: 3, messages: 5, responses: 6 };

/** The answer cut mid-text: the first words go out, then the socket drops (R11.6's trigger). */
function answerCutMidText(protocol: Protocol, context: QueueContext): ScenarioBuilder<Protocol> {
  return scenario.for(protocol).text(context.content.answer).wordsPerDelta(2).usage({ input: 40, output: 9 }).destroySocket({ afterEvents: FIRST_WORDS_RECORDS[protocol] });
}

export const FAILOVER_SCENARIOS: readonly FailoverScenario[] = [
  {
    name: 'fail-over',
    engine: 'failover',
    summary: 'HTTP 503 three times in a row, then the configured fallback model answers (R11.2, R11.3)',
    runsOnRealUpstream: false,
    expected: { outcome: 'ok', physicalRequests: 4, recovered: false, retries: 2 },
    turns: 1,
    chain: ({ protocol }) => ({ fallbacks: [{ protocol, model: FALLBACK_MODEL, upstream: 'mock-fallback' }] }),
    queueReplies(context) {
      const { protocol } = context;
      enqueue(context, protocol, unavailable(protocol), unavailable(protocol), unavailable(protocol), buildAnswer(protocol, context));
    },
  },
  {
    name: 'circuit-open-close',
    engine: 'failover',
    summary: 'the primary fails until its circuit opens; the next turn goes straight to the fallback; after the cool-down one probe closes it (R11.5)',
    runsOnRealUpstream: false,
    // Turn 1: three 503s (the circuit opens), the fallback; turn 2: the fallback alone; turn 3, 30 s later: the probe answers.
    expected: { outcome: 'ok', physicalRequests: 6, recovered: false, retries: 2 },
    turns: 3,
    advanceBefore: (index) => (index === 2 ? 30_000 : 0),
    chain: ({ protocol }) => ({ fallbacks: [{ protocol, model: FALLBACK_MODEL, upstream: 'mock-fallback' }], circuit: { failureThreshold: 3, coolDownMs: 30_000 } }),
    queueReplies(context) {
      const { protocol } = context;
      enqueue(context, protocol, unavailable(protocol), unavailable(protocol), unavailable(protocol), buildAnswer(protocol, context), buildAnswer(protocol, context), buildAnswer(protocol, context));
    },
  },
  {
    name: 'stall-caught',
    engine: 'failover',
    summary: 'the stream starts, then goes silent before any output: the stall limit cuts it and the fallback answers (R11.4)',
    runsOnRealUpstream: false,
    expected: { outcome: 'ok', physicalRequests: 2, recovered: false, retries: 0 },
    turns: 1,
    chain: ({ protocol }) => ({ fallbacks: [{ protocol, model: FALLBACK_MODEL, upstream: 'mock-fallback' }], timeLimits: { firstTokenMs: 5000, stallBeforeOutputMs: 300 } }),
    queueReplies(context) {
      const { protocol } = context;
      // A second between records: the first comes within the first-token limit, the gap after it is a stall.
      enqueue(context, protocol, scenario.for(protocol).reasoning(context.content.reasoning).text(context.content.answer).delay(1000), buildAnswer(protocol, context));
    },
  },
  {
    name: 'continuation',
    engine: 'failover',
    summary: 'the answer is cut mid-text; one continuation request with the answer so far as a prefill finishes it (R11.6)',
    runsOnRealUpstream: false,
    expected: { outcome: 'ok', physicalRequests: 2, recovered: false, retries: 0 },
    turns: 1,
    chain: ({ protocol }) =>
      protocol === 'responses'
        ? { fallbacks: [{ protocol: 'chat', model: FALLBACK_MODEL, upstream: 'mock-chat', prefill: 'trailing-message' }], continuation: 'prefill' }
        : { fallbacks: [], prefill: protocol === 'messages' ? 'messages' : 'trailing-message', continuation: 'prefill' },
    queueReplies(context) {
      const { protocol } = context;
      enqueue(context, protocol, answerCutMidText(protocol, context));
      enqueue(context, CONTINUES_ON[protocol], scenario.for(CONTINUES_ON[protocol]).text(' (continued)').usage({ input: 60, output: 3 }));
    },
  },
];
