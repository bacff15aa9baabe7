import type { Histogram } from '@opentelemetry/sdk-metrics';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { INTERACTIVE_RETRY_BUDGET } from '../failover/retry-budget.js';
import { collectTurnEvents } from '../turn/fake-wire.test-helper.js';
import { PRIMARY, SECOND, chainRequest, createChainAdapter, createChainFetch, fallbackTo, type ChainReply } from '../turn/fake-chain-wire.test-helper.js';
import { runTurn, type RunTurnOptions } from '../turn/run-turn.js';
import type { ChainNative } from '../turn/fake-chain-wire.test-helper.js';
import { loadOtelApi, resetOtelApiForTests } from './otel-api.js';
import { telemetryHarness, type Harness } from './telemetry-harness.test-helper.js';

// R12.1 with R11: a fail-over turn's span says how the chain went, each physical request's span where it went.
const PROMPT_MARKER = 'PROMPT-MARKER-0f3d';
const ANSWER_MARKER = 'ANSWER-MARKER-e61b';
const KEY_MARKER = 'sk-KEY-MARKER-4a97';

async function runChain(script: Record<string, ChainReply[]>, harness: Harness, options: Partial<RunTurnOptions<ChainNative>> = {}) {
  const wire = createChainFetch(script);
  let id = 0;
  const run = runTurn({
    adapter: createChainAdapter('chat'),
    request: chainRequest({ messages: [{ role: 'user', content: [{ type: 'text', text: `question ${PROMPT_MARKER}` }] }] }),
    target: { baseUrl: PRIMARY, apiKey: KEY_MARKER },
    upstream: 'primary',
    fetch: wire.fetch,
    createId: () => `req-${++id}`,
    retryBudget: { ...INTERACTIVE_RETRY_BUDGET, initialDelayMs: 1, maxDelayMs: 2, burst: undefined, retryWindowMs: undefined },
    telemetry: { tracer: harness.tracer, meter: harness.meter, semconvStabilityOptIn: '' },
    ...options,
  });
  await collectTurnEvents(run);
  const result = await run.result;
  await loadOtelApi();
  const spans = harness.spans.getFinishedSpans();
  const turn = spans.filter((span) => span.name.startsWith('chat'));
  expect(turn).toHaveLength(1);
  const requests = spans.filter((span) => span.name === 'POST').sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
  return { result, turn: turn[0]!, requests, spans };
}

const answer: ChainReply = { lines: [{ t: ANSWER_MARKER }, { u: { in: 9, out: 3 } }, { end: 'stop' }] };
const unavailable: ChainReply = { status: 503 };

function whereEachWent(requests: ReadableSpan[]): unknown[] {
  return requests.map((span) => [
    span.attributes['server.address'],
    span.attributes['turnguard.upstream'],
    span.attributes['gen_ai.request.model'],
    span.attributes['gen_ai.provider.name'],
    span.attributes['turnguard.fallback.from'],
    span.attributes['http.request.resend_count'],
    span.attributes['turnguard.segment'],
  ]);
}

afterEach(() => {
  resetOtelApiForTests();
});

describe('fail-over telemetry (R12.1, R11.7)', () => {
  it('a turn that fell back to another family: the chain on the turn span, a child per request where it went, the fallback counted', async () => {
    const harness = telemetryHarness();
    const { result, turn, requests } = await runChain({ [PRIMARY]: [unavailable, unavailable, unavailable], [SECOND]: [answer] }, harness, {
      fallbacks: [fallbackTo(SECOND, 'second-model', { protocol: 'messages' })],
    });
    expect(result).toMatchObject({ outcome: 'ok', model: 'second-model', fallbacks: 1 });
    expect(turn.name).toBe('chat primary-model');
    expect(turn.attributes).toMatchObject({
      'gen_ai.request.model': 'primary-model',
      // The answer came from the fallback: its family and server.
      'gen_ai.provider.name': 'anthropic',
      'server.address': 'second.test',
      'turnguard.physical_requests': 4,
      // Two resends to the primary; the move to the fallback is not a retry.
      'turnguard.retries': 2,
      'turnguard.fallback.count': 1,
      'turnguard.continued': false,
      'turnguard.fallback.models': ['primary-model', 'second-model'],
      'turnguard.fallback.upstreams': ['primary', 'second'],
      'turnguard.fallback.outcomes': ['failed', 'answered'],
      'turnguard.fallback.reasons': ['SERVER'],
      'gen_ai.usage.input_tokens': 9,
    });
    expect(whereEachWent(requests)).toEqual([
      ['primary.test', 'primary', 'primary-model', 'openai', undefined, undefined, 'first'],
      ['primary.test', 'primary', 'primary-model', 'openai', undefined, 1, 'first'],
      ['primary.test', 'primary', 'primary-model', 'openai', undefined, 2, 'first'],
      ['second.test', 'second', 'second-model', 'anthropic', 'primary-model', undefined, 'first'],
    ]);
    const metrics = await harness.metrics();
    expect(metrics.get('turnguard.client.fallbacks')!.map((point) => [point.value, point.attributes['gen_ai.request.model']])).toEqual([[1, 'primary-model']]);
    expect(metrics.get('turnguard.client.continuations')).toBeUndefined();
    const physical = metrics.get('turnguard.client.physical_requests')!.map((point) => [point.attributes['server.address'], point.attributes['turnguard.outcome'], point.value]);
    expect(physical).toEqual(
      expect.arrayContaining([
        ['primary.test', 'error', 3],
        ['second.test', 'ok', 1],
      ]),
    );
    const tokens = metrics.get('gen_ai.client.token.usage')!;
    expect(tokens.map((point) => [point.attributes['gen_ai.provider.name'], point.attributes['server.address'], (point.value as Histogram).sum])).toEqual([
      ['anthropic', 'second.test', 9],
      ['anthropic', 'second.test', 3],
    ]);
  });

  it('a cut answer continued by a fallback: continued on the turn span, the continuation request marked and placed', async () => {
    const harness = telemetryHarness();
    const cut: ChainReply = { lines: [{ t: 'The quick ' }, { t: 'brown ' }], then: 'reset' };
    const rest: ChainReply = { lines: [{ t: 'fox jumps.' }, { u: { in: 20, out: 4 } }, { end: 'stop' }] };
    const { result, turn, requests } = await runChain({ [PRIMARY]: [cut], [SECOND]: [rest] }, harness, {
      continuation: 'prefill',
      fallbacks: [fallbackTo(SECOND, 'deepseek-chat', { prefill: 'prefix-flag' })],
    });
    expect(result).toMatchObject({ outcome: 'ok', continued: true, model: 'deepseek-chat' });
    expect(turn.attributes).toMatchObject({ 'turnguard.continued': true, 'turnguard.fallback.count': 0, 'server.address': 'second.test', 'turnguard.retries': 0 });
    expect(whereEachWent(requests)).toEqual([
      ['primary.test', 'primary', 'primary-model', 'openai', undefined, undefined, 'first'],
      ['second.test', 'second', 'deepseek-chat', 'openai', 'primary-model', undefined, 'continuation'],
    ]);
    const metrics = await harness.metrics();
    expect(metrics.get('turnguard.client.continuations')!.map((point) => point.value)).toEqual([1]);
    expect(metrics.get('turnguard.client.fallbacks')).toBeUndefined();
  });

  it('a turn that never left its first entry: no fallback count, no chain lists', async () => {
    const harness = telemetryHarness();
    const { turn } = await runChain({ [PRIMARY]: [answer] }, harness, { fallbacks: [fallbackTo(SECOND, 'second-model')] });
    expect(turn.attributes).toMatchObject({ 'turnguard.fallback.count': 0, 'turnguard.continued': false, 'server.address': 'primary.test' });
    expect(Object.keys(turn.attributes).filter((name) => /^turnguard\.fallback\.(models|upstreams|outcomes|reasons)$/.test(name))).toEqual([]);
  });

  it('no prompt, answer or key in any span or metric point of a fail-over turn (R4.10, R8.5)', async () => {
    const harness = telemetryHarness();
    const { spans } = await runChain({ [PRIMARY]: [{ status: 503, body: `{"error":"echo ${PROMPT_MARKER} ${KEY_MARKER}"}` }, unavailable, unavailable], [SECOND]: [answer] }, harness, {
      fallbacks: [fallbackTo(SECOND, 'second-model')],
    });
    const metrics = await harness.metrics();
    const everything = JSON.stringify([spans.map((span) => [span.name, span.attributes, span.status, span.events]), [...metrics.entries()]]);
    expect(everything).toContain('second-model');
    for (const marker of [PROMPT_MARKER, ANSWER_MARKER, KEY_MARKER]) expect(everything).not.toContain(marker);
  });
});
