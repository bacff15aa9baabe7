import { context as otelContext, trace, type Context } from '@opentelemetry/api';
import type { Histogram } from '@opentelemetry/sdk-metrics';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { collectTurnEvents, createFakeFetch, fakeAdapter, type FakeReply } from '../turn/fake-wire.test-helper.js';
import { runTurn } from '../turn/run-turn.js';
import { loadOtelApi, resetOtelApiForTests } from './otel-api.js';
import { telemetryHarness, type Harness } from './telemetry-harness.test-helper.js';

const PROMPT_MARKER = 'PROMPT-MARKER-5c1e';
const THINKING_MARKER = 'THINKING-MARKER-77aa';
const ANSWER_MARKER = 'ANSWER-MARKER-9b02';
const KEY_MARKER = 'sk-KEY-MARKER-31f0';

async function runWith(replies: FakeReply[], harness: Harness, extra: { parentContext?: Context; semconvStabilityOptIn?: string } = {}) {
  const wire = createFakeFetch(replies);
  let id = 0;
  const run = runTurn({
    adapter: fakeAdapter,
    request: { model: 'fake-model-1', messages: [{ role: 'user', content: [{ type: 'text', text: `say it ${PROMPT_MARKER}` }] }] },
    target: { baseUrl: 'https://upstream.test:8443/v1?key=' + KEY_MARKER, apiKey: KEY_MARKER },
    fetch: wire.fetch,
    retry: { initialDelayMs: 0, jitterRatio: 0 },
    createId: () => `id-${++id}`,
    telemetry: { tracer: harness.tracer, meter: harness.meter, semconvStabilityOptIn: extra.semconvStabilityOptIn ?? '', parentContext: extra.parentContext },
  });
  await collectTurnEvents(run);
  const result = await run.result;
  // The telemetry is emitted once the API is loaded: after the callback registered at the turn's end.
  await loadOtelApi();
  return { result, spans: harness.spans.getFinishedSpans() };
}

function turnSpanOf(spans: ReadableSpan[]): ReadableSpan {
  const turn = spans.filter((span) => span.name.startsWith('chat'));
  expect(turn).toHaveLength(1);
  return turn[0]!;
}

function requestSpansOf(spans: ReadableSpan[]): ReadableSpan[] {
  return spans.filter((span) => span.name === 'POST').sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
}

const OK_REPLY: FakeReply = { lines: [{ r: THINKING_MARKER }, { t: ANSWER_MARKER }, { u: { in: 12, out: 7 } }, { end: 'stop' }] };

afterEach(() => {
  resetOtelApiForTests();
});

describe('turn telemetry (R12.1)', () => {
  it('a fault-free turn: one GenAI span named by operation and model, one HTTP child, the reported usage', async () => {
    const harness = telemetryHarness();
    const { spans } = await runWith([OK_REPLY], harness);
    const turn = turnSpanOf(spans);
    expect(turn.name).toBe('chat fake-model-1');
    expect(turn.kind).toBe(2);
    expect(turn.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'fake-model-1',
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.input_tokens': 12,
      'gen_ai.usage.output_tokens': 7,
      'server.address': 'upstream.test',
      'server.port': 8443,
      'turnguard.physical_requests': 1,
      'turnguard.retries': 0,
      'turnguard.usage.complete': true,
    });
    // Unknown counts are absent, never 0 (R5.1).
    for (const name of ['gen_ai.usage.cache_read.input_tokens', 'gen_ai.usage.cache_creation.input_tokens', 'gen_ai.usage.reasoning.output_tokens', 'error.type']) {
      expect(turn.attributes).not.toHaveProperty(name);
    }
    const [request] = requestSpansOf(spans);
    expect(request!.parentSpanContext?.spanId).toBe(turn.spanContext().spanId);
    expect(request!.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.response.status_code': 200, 'turnguard.request_id': 'id-1' });
    expect(request!.attributes).not.toHaveProperty('http.request.resend_count');

    const metrics = await harness.metrics();
    const duration = metrics.get('gen_ai.client.operation.duration')!;
    expect(duration).toHaveLength(1);
    expect(duration[0]!.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'fake-model-1' });
    const tokens = metrics.get('gen_ai.client.token.usage')!;
    expect(tokens.map((point) => [point.attributes['gen_ai.token.type'], (point.value as Histogram).sum])).toEqual([
      ['input', 12],
      ['output', 7],
    ]);
    expect(metrics.get('gen_ai.client.operation.time_to_first_chunk')).toHaveLength(1);
  });

  it('a retried turn: a child per physical request, the resend counted, the failed one with its status', async () => {
    const harness = telemetryHarness();
    const { spans } = await runWith([{ status: 429 }, { status: 503 }, OK_REPLY], harness);
    const requests = requestSpansOf(spans);
    expect(requests.map((span) => [span.attributes['http.response.status_code'], span.attributes['http.request.resend_count'], span.attributes['error.type']])).toEqual([
      [429, undefined, 'RATE_LIMIT'],
      [503, 1, 'SERVER'],
      [200, 2, undefined],
    ]);
    expect(requests.map((span) => span.status.code)).toEqual([2, 2, 0]);
    expect(turnSpanOf(spans).attributes).toMatchObject({ 'turnguard.physical_requests': 3, 'turnguard.retries': 2 });
  });

  it('a recovered turn whose cut request reported no usage: recovery named, no usage attribute on the turn (R5.2)', async () => {
    const harness = telemetryHarness();
    const { result, spans } = await runWith(
      [{ lines: [{ r: THINKING_MARKER }], then: 'eof' }, { lines: [{ t: ANSWER_MARKER }, { u: { in: 30, out: 4 } }, { end: 'stop' }] }],
      harness,
    );
    expect(result.recovery?.recovered).toBe(true);
    const turn = turnSpanOf(spans);
    expect(turn.attributes).toMatchObject({ 'turnguard.recovery': 'recovered', 'turnguard.usage.complete': false, 'turnguard.physical_requests': 2 });
    expect(Object.keys(turn.attributes).filter((name) => name.startsWith('gen_ai.usage.'))).toEqual([]);
    const requests = requestSpansOf(spans);
    expect(requests.map((span) => span.attributes['turnguard.segment'])).toEqual(['first', 'recovery']);
    expect(requests[1]!.attributes).not.toHaveProperty('http.request.resend_count');
    expect(requests[0]!.attributes).not.toHaveProperty('gen_ai.usage.input_tokens');
    expect(requests[1]!.attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 30, 'gen_ai.usage.output_tokens': 4 });
    // The token metric counts what each request reported: only the recovery's.
    const tokens = (await harness.metrics()).get('gen_ai.client.token.usage')!;
    expect(tokens.map((point) => (point.value as Histogram).sum)).toEqual([30, 4]);
    expect((await harness.metrics()).get('turnguard.client.recoveries')![0]!.value).toBe(1);
  });

  it('a failed turn: error.type, an `error` finish reason and an error status', async () => {
    const harness = telemetryHarness();
    const { spans } = await runWith([{ status: 400 }], harness);
    const turn = turnSpanOf(spans);
    expect(turn.attributes).toMatchObject({ 'error.type': 'INVALID_REQUEST', 'gen_ai.response.finish_reasons': ['error'] });
    expect(turn.status.code).toBe(2);
    const duration = (await harness.metrics()).get('gen_ai.client.operation.duration')!;
    expect(duration[0]!.attributes['error.type']).toBe('INVALID_REQUEST');
    expect((await harness.metrics()).get('gen_ai.client.token.usage')).toBeUndefined();
  });

  it('no prompt, thinking, answer or key in any span or metric point (R4.10, R8.5)', async () => {
    const harness = telemetryHarness();
    const { spans } = await runWith([{ status: 503 }, { lines: [{ r: THINKING_MARKER }], then: 'eof' }, OK_REPLY], harness);
    const metrics = await harness.metrics();
    const everything = JSON.stringify([spans.map((span) => [span.name, span.attributes, span.status, span.events]), [...metrics.entries()]]);
    for (const marker of [PROMPT_MARKER, THINKING_MARKER, ANSWER_MARKER, KEY_MARKER]) expect(everything).not.toContain(marker);
  });

  it('continues the parent context it is given', async () => {
    const harness = telemetryHarness();
    const parentSpan = harness.tracer.startSpan('client request');
    const parentContext = trace.setSpan(otelContext.active(), parentSpan);
    const { spans } = await runWith([OK_REPLY], harness, { parentContext });
    const turn = turnSpanOf(spans);
    expect(turn.spanContext().traceId).toBe(parentSpan.spanContext().traceId);
    expect(turn.parentSpanContext?.spanId).toBe(parentSpan.spanContext().spanId);
  });

  it('emits the newest GenAI names on gen_ai_latest_experimental', async () => {
    const harness = telemetryHarness();
    await runWith([OK_REPLY], harness, { semconvStabilityOptIn: 'http,gen_ai_latest_experimental' });
    const metrics = await harness.metrics();
    expect([...metrics.keys()].filter((name) => name.startsWith('gen_ai.')).sort()).toEqual([
      'gen_ai.client.inference.duration',
      'gen_ai.client.inference.operation.input_tokens',
      'gen_ai.client.inference.operation.output_tokens',
      'gen_ai.client.inference.time_to_first_chunk',
      'gen_ai.client.inference.usage.input_tokens',
      'gen_ai.client.inference.usage.output_tokens',
    ]);
    expect(metrics.get('gen_ai.client.inference.usage.input_tokens')![0]).toMatchObject({ value: 12, attributes: { 'gen_ai.token.modality': 'unknown' } });
  });

  it('telemetry: false reports nothing', async () => {
    const harness = telemetryHarness();
    const wire = createFakeFetch([OK_REPLY]);
    const run = runTurn({ adapter: fakeAdapter, request: { model: 'm', messages: [] }, target: { baseUrl: 'https://u.test' }, fetch: wire.fetch, telemetry: false });
    await run.result;
    await loadOtelApi();
    expect(harness.spans.getFinishedSpans()).toEqual([]);
  });

  it('without @opentelemetry/api the turn runs and nothing is reported', async () => {
    resetOtelApiForTests();
    const missing = Object.assign(new Error("Cannot find package '@opentelemetry/api'"), { code: 'ERR_MODULE_NOT_FOUND' });
    await expect(loadOtelApi(() => Promise.reject(missing))).resolves.toBeUndefined();
    const harness = telemetryHarness();
    const { result, spans } = await runWith([OK_REPLY], harness);
    expect(result.outcome).toBe('ok');
    expect(spans).toEqual([]);
  });
});

describe('a host hands core its own API module', () => {
  it('preloadTurnTelemetry(api) makes core use it, where core could not import the package itself', async () => {
    resetOtelApiForTests();
    const api = await import('@opentelemetry/api');
    await loadOtelApi(() => Promise.reject(new Error('not resolvable from here')));
    const { preloadTurnTelemetry } = await import('./record-turn-telemetry.js');
    expect(await preloadTurnTelemetry(api)).toBe(true);
    const harness = telemetryHarness();
    const { spans } = await runWith([OK_REPLY], harness);
    expect(spans.map((span) => span.name).sort()).toEqual(['POST', 'chat fake-model-1']);
  });
});
