import { randomBytes } from 'node:crypto';
import { scenario, type LoopbackUpstream } from '@turnguard/testkit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startHarness, type Harness } from '../testing/gateway-harness.test-helper.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedPoint, type ReceivedSpan } from '../testing/otlp-receiver.test-helper.js';

// R12.1: turns driven through the gateway reach an OTLP receiver as the GenAI conventions' spans and
// metric points, continuing the client's traceparent, with only the usage the upstream reported and no content.
const PROMPT = 'PROMPT-MARKER-1d4b';
const THINKING = 'THINKING-MARKER-a9e0';
const ANSWER = 'ANSWER-MARKER-c37f';
const KEY = 'sk-KEY-MARKER-58e2';

interface TurnCase {
  name: string;
  protocol: 'chat' | 'messages';
  model: string;
  stream: boolean;
  script(upstream: LoopbackUpstream): void;
  /** What the turn span says. */
  turn: Record<string, unknown>;
  /** Each physical request's status and resend count, in order. */
  requests: Array<[status: number, resendCount: number | undefined]>;
  /** The usage the upstream reported (undefined: none), as the token metric must count it. */
  tokens: { input: number; output: number } | undefined;
  /** The client's `x-turnguard-fallbacks` (R11). */
  fallbacks?: string[];
  /** What each physical request's span says besides its status, in order. */
  children?: Array<Record<string, unknown>>;
  /** turnguard's own counters, summed over the turn's points. */
  counters?: Record<string, number>;
  /** A Messages request without extended thinking (a prefill is refused with it on, decision 0401). */
  withoutThinking?: true;
}

// One entry per kind of turn.
const CASES: TurnCase[] = [
  {
    name: 'fault-free',
    protocol: 'chat',
    model: 'model-ok',
    stream: true,
    script: (upstream) => upstream.chat.enqueue(scenario.chat().text(ANSWER).usage({ input: 11, output: 5 })),
    turn: { 'gen_ai.response.finish_reasons': ['stop'], 'gen_ai.usage.input_tokens': 11, 'gen_ai.usage.output_tokens': 5, 'turnguard.physical_requests': 1 },
    requests: [[200, undefined]],
    tokens: { input: 11, output: 5 },
  },
  {
    name: 'retried',
    protocol: 'chat',
    model: 'model-retry',
    stream: false,
    script: (upstream) => upstream.chat.enqueue(scenario.chat().httpError(503), scenario.chat().httpError(500), scenario.chat().text(ANSWER).usage({ input: 9, output: 2 })),
    turn: { 'turnguard.physical_requests': 3, 'turnguard.retries': 2, 'gen_ai.usage.input_tokens': 9 },
    requests: [
      [503, undefined],
      [500, 1],
      [200, 2],
    ],
    tokens: { input: 9, output: 2 },
  },
  {
    name: 'recovered',
    protocol: 'messages',
    model: 'model-recover',
    stream: true,
    script: (upstream) =>
      upstream.messages.enqueue(scenario.messages().reasoning(`${THINKING} `.repeat(40)).eof(), scenario.messages().text(ANSWER).usage({ input: 7, output: 3 })),
    turn: { 'gen_ai.provider.name': 'anthropic', 'turnguard.recovery': 'recovered', 'turnguard.physical_requests': 2, 'turnguard.usage.complete': false },
    requests: [
      [200, undefined],
      [200, undefined],
    ],
    tokens: { input: 7, output: 3 },
  },
  {
    name: 'failed',
    protocol: 'chat',
    model: 'model-fail',
    stream: true,
    script: (upstream) => upstream.chat.enqueue(scenario.chat().httpError(400)),
    turn: { 'error.type': 'INVALID_REQUEST', 'gen_ai.response.finish_reasons': ['error'], 'turnguard.physical_requests': 1 },
    requests: [[400, undefined]],
    tokens: undefined,
  },
  {
    name: 'no usage reported',
    protocol: 'chat',
    model: 'model-nousage',
    stream: true,
    script: (upstream) => upstream.chat.enqueue(scenario.chat().text(ANSWER)),
    turn: { 'turnguard.usage.complete': false, 'gen_ai.response.finish_reasons': ['stop'] },
    requests: [[200, undefined]],
    tokens: undefined,
  },
  {
    name: 'fallen back',
    protocol: 'chat',
    model: 'model-primary',
    stream: true,
    fallbacks: ['model-fallback'],
    // Three 503s spend the primary's budget (R11.3); the fallback answers.
    script: (upstream) =>
      upstream.chat.enqueue(scenario.chat().httpError(503), scenario.chat().httpError(503), scenario.chat().httpError(503), scenario.chat().text(ANSWER).usage({ input: 10, output: 4 })),
    turn: {
      'gen_ai.response.model': 'model-fallback',
      'gen_ai.usage.input_tokens': 10,
      'turnguard.physical_requests': 4,
      'turnguard.retries': 2,
      'turnguard.fallback.count': 1,
      'turnguard.continued': false,
      'turnguard.fallback.models': ['model-primary', 'model-fallback'],
      'turnguard.fallback.upstreams': ['chat', 'chat'],
      'turnguard.fallback.outcomes': ['failed', 'answered'],
      'turnguard.fallback.reasons': ['OVERLOADED'],
    },
    requests: [
      [503, undefined],
      [503, 1],
      [503, 2],
      [200, undefined],
    ],
    children: [
      { 'gen_ai.request.model': 'model-primary', 'turnguard.upstream': 'chat', 'turnguard.segment': 'first' },
      { 'gen_ai.request.model': 'model-primary', 'turnguard.upstream': 'chat', 'turnguard.segment': 'first' },
      { 'gen_ai.request.model': 'model-primary', 'turnguard.upstream': 'chat', 'turnguard.segment': 'first' },
      { 'gen_ai.request.model': 'model-fallback', 'gen_ai.response.model': 'model-fallback', 'turnguard.upstream': 'chat', 'turnguard.fallback.from': 'model-primary', 'turnguard.segment': 'first' },
    ],
    tokens: { input: 10, output: 4 },
    counters: { 'turnguard.client.fallbacks': 1, 'turnguard.client.continuations': 0 },
  },
  {
    name: 'continued',
    protocol: 'messages',
    model: 'model-continue',
    stream: true,
    withoutThinking: true,
    // Cut mid-answer; Anthropic's Messages continues its own final assistant message (R11.6).
    script: (upstream) =>
      upstream.messages.enqueue(scenario.messages().text(`${ANSWER} and more words`).usage({ input: 6, output: 1 }).eof({ afterEvents: 4 }), scenario.messages().text(' the rest.').usage({ input: 8, output: 3 })),
    turn: { 'turnguard.continued': true, 'turnguard.fallback.count': 0, 'turnguard.physical_requests': 2, 'turnguard.retries': 0 },
    requests: [
      [200, undefined],
      [200, undefined],
    ],
    children: [
      { 'gen_ai.request.model': 'model-continue', 'turnguard.segment': 'first', 'turnguard.outcome': 'cut' },
      { 'gen_ai.request.model': 'model-continue', 'turnguard.segment': 'continuation', 'turnguard.outcome': 'ok' },
    ],
    tokens: { input: 14, output: 4 },
    counters: { 'turnguard.client.fallbacks': 0, 'turnguard.client.continuations': 1 },
  },
];

let receiver: OtlpReceiver;
let harness: Harness;
const traceIds = new Map<string, string>();
const answered = new Map<string, number>();

function send(h: Harness, turnCase: TurnCase, traceId: string): Promise<Response> {
  const traceparent = `00-${traceId}-${randomBytes(8).toString('hex')}-01`;
  const chain: Record<string, string> = turnCase.fallbacks === undefined ? {} : { 'x-turnguard-fallbacks': JSON.stringify(turnCase.fallbacks) };
  if (turnCase.protocol === 'messages') {
    return fetch(`${h.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': KEY, 'anthropic-version': '2023-06-01', traceparent, ...chain },
      body: JSON.stringify({
        model: turnCase.model,
        max_tokens: 4096,
        stream: turnCase.stream,
        ...(turnCase.withoutThinking ? {} : { thinking: { type: 'enabled', budget_tokens: 1024 } }),
        messages: [{ role: 'user', content: PROMPT }],
      }),
    });
  }
  return fetch(`${h.openAiBaseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}`, traceparent, ...chain },
    body: JSON.stringify({ model: turnCase.model, stream: turnCase.stream, messages: [{ role: 'user', content: PROMPT }] }),
  });
}

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', receiver.url);
  vi.stubEnv('OTEL_EXPORTER_OTLP_PROTOCOL', 'http/json');
  // One export of each signal, when the gateway closes: nothing is timed.
  vi.stubEnv('OTEL_METRIC_EXPORT_INTERVAL', '600000');
  vi.stubEnv('OTEL_SERVICE_NAME', 'gateway-under-test');
  // Continuation is opt-in (R11.6); it acts only on a cut after visible text, which no other case has.
  harness = await startHarness({ continuation: 'prefill' });
  for (const turnCase of CASES) {
    const traceId = randomBytes(16).toString('hex');
    traceIds.set(turnCase.name, traceId);
    turnCase.script(harness.upstream);
    const response = await send(harness, turnCase, traceId);
    answered.set(turnCase.name, response.status);
    await response.text();
  }
  await harness.sink.waitForTurns(CASES.length);
  // Closing the gateway flushes both signals to the receiver.
  await harness.close();
}, 60_000);

afterAll(async () => {
  vi.unstubAllEnvs();
  await receiver?.close();
});

function spansOf(name: string): { turn: ReceivedSpan; requests: ReceivedSpan[] } {
  const spans = receiver.spans.filter((span) => span.traceId === traceIds.get(name));
  const turns = spans.filter((span) => span.name.startsWith('chat '));
  expect(turns, name).toHaveLength(1);
  const turn = turns[0]!;
  const requests = spans.filter((span) => span.parentSpanId === turn.spanId).sort((a, b) => a.startMs - b.startMs);
  return { turn, requests };
}

function pointsOf(metric: string, model: string): ReceivedPoint[] {
  return receiver.points.filter((point) => point.metric === metric && point.attributes['gen_ai.request.model'] === model);
}

describe('OpenTelemetry export through the gateway (R12.1)', () => {
  it.each(CASES)('$name: one turn span continuing the client\'s trace, a child per physical request', (turnCase) => {
    const { turn, requests } = spansOf(turnCase.name);
    expect(turn.name).toBe(`chat ${turnCase.model}`);
    expect(turn.kind).toBe(3); // OTLP's SPAN_KIND_CLIENT
    // The parent is the client's span from its traceparent: the turn is not a root.
    expect(turn.parentSpanId).not.toBe('');
    expect(turn.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': turnCase.protocol === 'messages' ? 'anthropic' : 'openai',
      'gen_ai.request.model': turnCase.model,
      'server.address': '127.0.0.1',
      ...turnCase.turn,
    });
    expect(turn.resource['service.name']).toBe('gateway-under-test');
    expect(requests.map((span) => [span.attributes['http.response.status_code'], span.attributes['http.request.resend_count']])).toEqual(turnCase.requests);
    for (const span of requests) expect(span.startMs).toBeGreaterThanOrEqual(turn.startMs);
    // Each physical request says where it went: the server, and in a chain the model and upstream (R11.7).
    for (const span of requests) expect(span.attributes).toMatchObject({ 'server.address': '127.0.0.1' });
    if (turnCase.children !== undefined) turnCase.children.forEach((child, index) => expect(requests[index]!.attributes, `request ${index}`).toMatchObject(child));
  });

  it.each(CASES)('$name: usage only as reported — an unknown count is absent, never 0 (R5.1)', (turnCase) => {
    const { turn } = spansOf(turnCase.name);
    const tokenPoints = pointsOf('gen_ai.client.token.usage', turnCase.model);
    if (turnCase.tokens === undefined) {
      expect(tokenPoints).toEqual([]);
      expect(Object.keys(turn.attributes).filter((name) => name.startsWith('gen_ai.usage.'))).toEqual([]);
    } else {
      const byType = Object.fromEntries(tokenPoints.map((point) => [point.attributes['gen_ai.token.type'], point.value]));
      expect(byType).toEqual(turnCase.tokens);
    }
    expect(turn.attributes).not.toHaveProperty('gen_ai.usage.cache_read.input_tokens');
    expect(turn.attributes).not.toHaveProperty('gen_ai.usage.reasoning.output_tokens');
  });

  it.each(CASES)('$name: one duration point per turn, with error.type on a failure', (turnCase) => {
    const durations = pointsOf('gen_ai.client.operation.duration', turnCase.model);
    expect(durations).toHaveLength(1);
    expect(durations[0]).toMatchObject({ unit: 's', count: 1 });
    expect(durations[0]!.attributes['error.type']).toBe(turnCase.turn['error.type']);
    const physical = pointsOf('turnguard.client.physical_requests', turnCase.model).reduce((sum, point) => sum + point.value, 0);
    expect(physical).toBe(turnCase.requests.length);
    for (const [metric, sum] of Object.entries(turnCase.counters ?? {})) {
      expect(pointsOf(metric, turnCase.model).reduce((total, point) => total + point.value, 0), metric).toBe(sum);
    }
  });

  it('no prompt, thinking, answer or key in anything exported (R4.10, R8.5)', () => {
    expect(answered.get('recovered')).toBe(200);
    expect(answered.get('fallen back')).toBe(200);
    expect(answered.get('continued')).toBe(200);
    const exported = receiver.bodies.map((body) => body.body.toString('utf8')).join('\n');
    expect(exported).toContain('model-recover');
    for (const marker of [PROMPT, THINKING, ANSWER, KEY]) expect(exported).not.toContain(marker);
  });
});
