import type { Protocol } from '@turnguard/core';
import { scenario, type ScenarioBuilder, type ScenarioQueue } from '@turnguard/testkit/server';
import type { ProbeContent, QueueContext, TurnScenario } from '../probe-types.js';

/** Characters of reasoning in a "long think" (enough to be worth keeping, R4.1). */
const LONG_THINK_CHARS = 4000;

/** Repeats `unit` up to `length` characters: the long think is the content's reasoning, repeated. */
export function repeatToLength(unit: string, length: number): string {
  if (unit.length === 0) return '';
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

/** A normal, finished answer (terminal frame, usage on the wire). */
export function buildAnswer<P extends Protocol>(protocol: P, context: QueueContext): ScenarioBuilder<P> {
  return scenario
    .for(protocol)
    .reasoning(context.content.reasoning)
    .text(context.content.answer)
    .usage({ input: 40, output: 60 })
    .delay(context.timing.chunkDelayMs);
}

function buildLongThink<P extends Protocol>(protocol: P, content: ProbeContent, chunkDelayMs: number): ScenarioBuilder<P> {
  // Many words per delta keep the record count (and so the mock's delays) small.
  return scenario.for(protocol).reasoning(repeatToLength(content.reasoning, LONG_THINK_CHARS)).wordsPerDelta(25).delay(chunkDelayMs);
}

function serverWaitHeaders(context: QueueContext): Record<string, string> {
  // R1.3: `retry-after-ms` is honoured exactly, so the shortened wait is what the probe really waits.
  return { 'retry-after-ms': String(context.timing.serverWaitMs) };
}

function enqueue(context: QueueContext, ...replies: ScenarioBuilder<Protocol>[]): void {
  (context.upstream[context.protocol] as ScenarioQueue<Protocol>).enqueue(...replies);
}

const OVERLOADED_STATUS: Record<Protocol, { status: number; type?: string }> = {
  chat: { status: 503 },
  messages: { status: 529, type: 'overloaded_error' },
  responses: { status: 503 },
};

export const TURN_SCENARIOS: readonly TurnScenario[] = [
  {
    name: 'long-think-cut',
    engine: 'turn',
    summary: 'a long think whose stream ends with no finish frame, recovered by one bounded request (R4)',
    runsOnRealUpstream: true,
    expected: { outcome: 'ok', physicalRequests: 2, recovered: true, retries: 0 },
    queueReplies(context) {
      enqueue(context, buildLongThink(context.protocol, context.content, context.timing.chunkDelayMs).eof(), buildAnswer(context.protocol, context));
    },
  },
  {
    name: 'rate-limit-storm',
    engine: 'turn',
    summary: 'three HTTP 429s with a server-directed wait, then an answer (R1.1, R1.3, R1.5)',
    runsOnRealUpstream: false,
    expected: { outcome: 'ok', physicalRequests: 4, recovered: false, retries: 3 },
    queueReplies(context) {
      const limited = scenario.for(context.protocol).httpError(429, { headers: serverWaitHeaders(context) });
      enqueue(context, limited, limited, limited, buildAnswer(context.protocol, context));
    },
  },
  {
    name: 'overload-5xx',
    engine: 'turn',
    summary: 'overloaded (503/529 with a wait), then HTTP 500 and 502 with backoff, then an answer (R1.1, R1.4)',
    runsOnRealUpstream: false,
    expected: { outcome: 'ok', physicalRequests: 4, recovered: false, retries: 3 },
    queueReplies(context) {
      const overloaded = OVERLOADED_STATUS[context.protocol];
      enqueue(
        context,
        scenario.for(context.protocol).httpError(overloaded.status, { type: overloaded.type, headers: serverWaitHeaders(context) }),
        scenario.for(context.protocol).httpError(500),
        scenario.for(context.protocol).httpError(502),
        buildAnswer(context.protocol, context),
      );
    },
  },
  {
    name: 'socket-drop-before-output',
    engine: 'turn',
    summary: 'the connection drops before any response byte, then an answer: safe to resend (R1.1)',
    runsOnRealUpstream: false,
    expected: { outcome: 'ok', physicalRequests: 2, recovered: false, retries: 1 },
    queueReplies(context) {
      enqueue(context, scenario.for(context.protocol).destroySocketBeforeHeaders(), buildAnswer(context.protocol, context));
    },
  },
  {
    name: 'socket-drop-after-output',
    engine: 'turn',
    summary: 'the connection drops after answer text arrived: never resent, ends as STREAM_CUT (R1.2, R4.2)',
    runsOnRealUpstream: false,
    expected: { outcome: 'error', errorCode: 'STREAM_CUT', physicalRequests: 1, recovered: false, retries: 0 },
    queueReplies(context) {
      enqueue(context, buildAnswer(context.protocol, context).destroySocket());
    },
  },
];
