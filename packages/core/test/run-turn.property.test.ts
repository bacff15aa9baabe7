/**
 * R1/R4 property: for random fault schedules (cut points, errors, missing
 * usage, aborts) over all three protocols — at most one recovery request per
 * turn (≤ 2 segments besides R1 retries), exactly one `recordTurn`, one
 * physical sample per request, nothing after the final event, and usage that
 * never invents a zero (R4.3, R5.1, R6.1, R6.2).
 */
import { scenario, type ScenarioBuilder } from '@turnguard/testkit';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { USAGE_FIELDS, type Protocol, type TurnEvent } from '../src/index.js';
import { startUpstream } from './msw-upstream.js';
import { enqueue, PROTOCOLS, startTurn } from './turn-harness.js';

const { upstream, server } = startUpstream();
afterAll(() => server.close());

const REPLY_KINDS = [
  'reasoning-eof',
  'reasoning-text-eof',
  'reasoning-cut-bytes',
  'answer',
  'reasoning-only-finish',
  'tool-call-eof',
  'empty-eof',
  'http-429',
  'http-500',
  'http-400',
  'stream-error',
  'whitespace',
] as const;
type ReplyKind = (typeof REPLY_KINDS)[number];

function buildReply(
  protocol: Protocol,
  kind: ReplyKind,
  usage: { input: number; output: number } | undefined,
  cutBytes: number,
) {
  const base = scenario.for(protocol);
  const withUsage = (builder: ScenarioBuilder<Protocol>) => (usage === undefined ? builder : builder.usage(usage));
  switch (kind) {
    case 'reasoning-eof':
      return withUsage(base.reasoning('alpha beta gamma delta')).eof();
    case 'reasoning-text-eof':
      return withUsage(base.reasoning('alpha beta').text('partial answer')).eof();
    case 'reasoning-cut-bytes':
      return withUsage(base.reasoning(600)).eof({ afterBytes: cutBytes });
    case 'answer':
      return withUsage(base.reasoning('short').text('The answer.'));
    case 'reasoning-only-finish':
      return withUsage(base.reasoning('only thinking'));
    case 'tool-call-eof':
      return withUsage(base.toolCall('read_file', { arg: 'x' })).eof();
    case 'empty-eof':
      return base.eof();
    case 'http-429':
      return base.httpError(429);
    case 'http-500':
      return base.httpError(500);
    case 'http-400':
      return base.httpError(400);
    case 'stream-error':
      return base.streamError({ type: 'server_error', message: 'boom' });
    case 'whitespace':
      return withUsage(base.text('   '));
    default: {
      const _exhaustive: never = kind;
      return _exhaustive;
    }
  }
}

const replyArbitrary = fc.record({
  kind: fc.constantFrom(...REPLY_KINDS),
  usage: fc.option(fc.record({ input: fc.integer({ min: 1, max: 5000 }), output: fc.integer({ min: 1, max: 900 }) }), {
    nil: undefined,
  }),
  cutBytes: fc.integer({ min: 1, max: 2500 }),
});

const scheduleArbitrary = fc.record({
  protocol: fc.constantFrom(...PROTOCOLS),
  replies: fc.array(replyArbitrary, { minLength: 1, maxLength: 5 }),
  abortAtEvent: fc.option(fc.integer({ min: 0, max: 12 }), { nil: undefined }),
  stopIteratingAtEvent: fc.option(fc.integer({ min: 0, max: 12 }), { nil: undefined }),
});

const isFinal = (event: TurnEvent): boolean => event.type === 'finish' || event.type === 'error';

describe('runTurn property over random fault schedules (R1, R4)', () => {
  it('bounds recovery, records one turn, ends with one final event, never invents a zero', async () => {
    await fc.assert(
      fc.asyncProperty(scheduleArbitrary, async ({ protocol, replies, abortAtEvent, stopIteratingAtEvent }) => {
        upstream.reset();
        enqueue(
          upstream,
          protocol,
          ...replies.map((reply) => buildReply(protocol, reply.kind, reply.usage, reply.cutBytes)),
        );
        const controller = new AbortController();
        const { run, samples, turns } = startTurn(protocol, {
          signal: controller.signal,
          retry: { initialDelayMs: 0, jitterRatio: 0, maxRetries: 3 },
        });
        const events: TurnEvent[] = [];
        for await (const event of run) {
          events.push(event);
          if (events.length - 1 === abortAtEvent) controller.abort();
          if (events.length - 1 === stopIteratingAtEvent) break;
        }
        const result = await run.result;
        const requests = upstream.requestsFor(protocol);

        expect(turns).toHaveLength(1);
        // One sample per physical request; a fetch aborted before msw read its body is sampled but never recorded upstream.
        expect(result.segments).toHaveLength(samples.length);
        const unseen = samples.length - requests.length;
        expect(unseen === 0 || (unseen === 1 && samples.at(-1)!.errorCode === 'ABORTED')).toBe(true);
        // At most one recovery segment, and it is the last request of the turn.
        const recoveryIndexes = samples.flatMap((sample, index) => (sample.recoveryAttempt ? [index] : []));
        expect(recoveryIndexes.length).toBeLessThanOrEqual(1);
        if (recoveryIndexes.length === 1) expect(recoveryIndexes[0]).toBe(samples.length - 1);
        expect(requests.filter((request) => request.bodyText.includes('CHECKPOINT BEGIN')).length).toBe(
          recoveryIndexes.length,
        );
        // Nothing after the final event; exactly one unless the host stopped iterating early.
        const finals = events.filter(isFinal);
        if (stopIteratingAtEvent === undefined) {
          expect(finals).toHaveLength(1);
          expect(isFinal(events.at(-1)!)).toBe(true);
        } else {
          expect(finals.length).toBeLessThanOrEqual(1);
          if (finals.length === 1) expect(isFinal(events.at(-1)!)).toBe(true);
        }
        // Every scripted count is ≥ 1, so a 0 anywhere would be invented.
        for (const field of USAGE_FIELDS) expect(result.usage[field]).not.toBe(0);
        for (const sample of samples) {
          expect(Object.values(sample.usage)).not.toContain(0);
          expect(sample.noUsage).toBe(Object.keys(sample.usage).length === 0);
        }
        if (result.error?.kind === 'aborted') expect(turns[0]!.outcome).toBe('aborted');
        expect(result.outcome === 'ok').toBe(result.error === undefined);
      }),
      { numRuns: 150 },
    );
  });
});
