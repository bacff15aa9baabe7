import { describe, expect, it } from 'vitest';
import { TurnError, type TurnErrorOptions } from '../errors/turn-error.js';
import { decideFailover, type FailoverDecision, type FailoverInput } from './decide-failover.js';
import { INTERACTIVE_RETRY_BUDGET, LIBRARY_RETRY_BUDGET } from './retry-budget.js';

const error = (options: Partial<TurnErrorOptions> & Pick<TurnErrorOptions, 'kind'>): TurnError => new TurnError({ message: 'x', ...options });

const E = {
  rateLimit: error({ kind: 'rate_limit', status: 429 }),
  rateLimitRetryAfter: error({ kind: 'rate_limit', status: 429, retryAfterMs: 2000 }),
  server: error({ kind: 'server', status: 500 }),
  overloaded: error({ kind: 'overloaded', status: 529 }),
  refused: error({ kind: 'transport' }),
  empty: error({ kind: 'transport', details: { emptyStream: true } }),
  cut: error({ kind: 'stream_cut' }),
  stall: error({ kind: 'timeout', code: 'STREAM_STALL' }),
  malformed: error({ kind: 'server', code: 'MALFORMED_CHUNK' }),
  headers: error({ kind: 'timeout', code: 'UPSTREAM_HEADERS_TIMEOUT' }),
  firstToken: error({ kind: 'timeout', code: 'FIRST_TOKEN_TIMEOUT' }),
  turnLimit: error({ kind: 'timeout' }),
  contextLength: error({ kind: 'prompt_too_long', status: 400 }),
  resize: error({ kind: 'invalid_request', status: 400, details: { contextOverflow: { inputTokens: 190_000, maxTokens: 20_000, contextLimit: 200_000 } } }),
  contentFilter: error({ kind: 'content_filter', status: 400 }),
  auth: error({ kind: 'auth', status: 401 }),
  invalid: error({ kind: 'invalid_request', status: 400 }),
  prefill: error({ kind: 'invalid_request', status: 400, message: 'HTTP 400: This model does not support assistant message prefill. The conversation must end with a user message.' }),
  aborted: error({ kind: 'aborted' }),
  quota: error({ kind: 'rate_limit', status: 429, retryable: false }),
};

function input(overrides: Partial<FailoverInput> & Pick<FailoverInput, 'error'>): FailoverInput {
  return {
    delivered: 'nothing',
    phase: 'attempt',
    attemptDelivered: false,
    responseStarted: false,
    hasNextTarget: true,
    continuation: 'off',
    continuationsSoFar: 0,
    budget: INTERACTIVE_RETRY_BUDGET,
    history: { turnStartedAt: 0, attemptStartTimes: [0], attemptsOnTarget: 1, consecutiveCountedFailures: 1 },
    nowMs: 50,
    random: () => 0,
    ...overrides,
  };
}

/** The parts of a decision a rule is about. */
function brief(decision: FailoverDecision): string {
  if (decision.action === 'retry') return `retry:${decision.reason}:${decision.delayMs}`;
  if (decision.action === 'end') return `end:${decision.reason}${decision.useOriginalError ? ':original' : ''}`;
  return `${decision.action}:${decision.reason}`;
}

type Row = [string, Partial<FailoverInput> & Pick<FailoverInput, 'error'>, string];
const cases = (rows: Row[]) => rows.map(([name, given, expected]) => ({ name, given, expected }));

const third = { turnStartedAt: 0, attemptStartTimes: [0, 1000, 3000], attemptsOnTarget: 3, consecutiveCountedFailures: 3 };

describe('R11.2 when to fail over, R11.3 the interactive budget, R11.6 continuation', () => {
  it.each(cases([
    // Retryable failures: the budget first, then the next target.
    ['429, first failure, fallback configured', { error: E.rateLimit }, 'retry:transient:1000'],
    ['429 with Retry-After', { error: E.rateLimitRetryAfter }, 'retry:transient:2000'],
    ['500, third consecutive failure, fallback configured', { error: E.server, history: third, nowMs: 3050 }, 'fail-over:retry-budget'],
    ['500, third consecutive failure, no fallback', { error: E.server, history: third, nowMs: 3050, hasNextTarget: false }, 'retry:transient:4000'],
    ['503 persistent, budget spent, no fallback', { error: E.server, hasNextTarget: false, history: { ...third, attemptsOnTarget: 5 } }, 'end:retry-budget'],
    ['Retry-After past the budget, fallback configured', { error: error({ kind: 'rate_limit', status: 429, retryAfterMs: 60_000 }) }, 'fail-over:retry-budget'],
    ['Retry-After past the budget, no fallback', { error: error({ kind: 'rate_limit', status: 429, retryAfterMs: 60_000 }), hasNextTarget: false }, 'end:retry-budget'],
    ['connection refused before headers', { error: E.refused }, 'retry:transient:1000'],
    ['not retryable (quota)', { error: E.quota }, 'end:not-retryable'],
    // At once (R11.2).
    ['context length, fallback configured', { error: E.contextLength }, 'fail-over:context-length'],
    ['context length, no fallback: never the same model again', { error: E.contextLength, hasNextTarget: false }, 'end:context-length'],
    ['header time-out: a silent route is failed over, not retried', { error: E.headers }, 'fail-over:silent-route'],
    ['first-token time-out', { error: E.firstToken }, 'fail-over:silent-route'],
    ['first-token time-out, no fallback: resent within the budget', { error: E.firstToken, hasNextTarget: false }, 'retry:transient:1000'],
    ['stall before output', { error: E.stall }, 'fail-over:stall'],
    ['empty stream (cut before output)', { error: E.empty }, 'fail-over:cut'],
    ['connection dropped after the 2xx, before output', { error: E.refused, responseStarted: true }, 'fail-over:cut'],
    ['malformed event before output', { error: E.malformed }, 'fail-over:malformed'],
    ['cut after thinking only: fail over, the fallback is spliced after it', { error: E.cut, delivered: 'reasoning' }, 'fail-over:cut'],
    ['429 after thinking only: never the same target (the thinking would show twice)', { error: E.rateLimit, delivered: 'reasoning' }, 'fail-over:retry-budget'],
    ['429 after thinking only, no fallback', { error: E.rateLimit, delivered: 'reasoning', hasNextTarget: false }, 'end:no-fallback'],
    ['R1.8 overflow: same target, smaller max_tokens', { error: E.resize }, 'retry:context-resize:0'],
    // Never (R11.2).
    ['content filter', { error: E.contentFilter }, 'end:content-filter'],
    ['auth', { error: E.auth }, 'end:auth'],
    ['invalid request', { error: E.invalid }, 'end:invalid-request'],
    ['a prefill 400 outside a continuation is an invalid request', { error: E.prefill }, 'end:invalid-request'],
    ['whole-turn time limit', { error: E.turnLimit }, 'end:turn-time-limit'],
    ['abort', { error: E.aborted }, 'end:aborted'],
    ['tool call started streaming, then cut', { error: E.cut, delivered: 'tool-call' }, 'end:tool-call-started'],
    ['tool call started, then 429', { error: E.rateLimit, delivered: 'tool-call' }, 'end:tool-call-started'],
    ['tool call started, continuation on', { error: E.cut, delivered: 'tool-call', continuation: 'prefill' }, 'end:tool-call-started'],
    // After visible text (R4.2, R11.6).
    ['cut after text, continuation off', { error: E.cut, delivered: 'visible-text' }, 'end:output-delivered'],
    ['cut after text, continuation on', { error: E.cut, delivered: 'visible-text', continuation: 'prefill' }, 'continue:cut'],
    ['stall after text, continuation on', { error: E.stall, delivered: 'visible-text', continuation: 'prefill' }, 'continue:stall'],
    ['malformed after text, continuation on', { error: E.malformed, delivered: 'visible-text', continuation: 'prefill' }, 'continue:malformed'],
    ['in-stream overload after text, continuation on: an explicit failure', { error: E.overloaded, delivered: 'visible-text', continuation: 'prefill' }, 'end:output-delivered'],
    ['second cut after text: one continuation per turn', { error: E.cut, delivered: 'visible-text', continuation: 'prefill', continuationsSoFar: 1 }, 'end:output-delivered'],
    // The continuation itself.
    ['continuation refused (prefill 400): the original cut goes to the host', { error: E.prefill, phase: 'continuation', delivered: 'visible-text' }, 'end:continuation-refused:original'],
    ['continuation failed before output: the original cut', { error: E.server, phase: 'continuation', delivered: 'visible-text' }, 'end:continuation-failed:original'],
    ['continuation cut after its own text', { error: E.cut, phase: 'continuation', delivered: 'visible-text', attemptDelivered: true }, 'end:output-delivered'],
  ]))('$name → $expected', ({ given, expected }) => {
    expect(brief(decideFailover(input(given)))).toBe(expected);
  });

  it('R1.9 under the library budget: only overloads count toward the fallback', () => {
    const history = { turnStartedAt: 0, attemptStartTimes: [0, 500, 1500], attemptsOnTarget: 3, consecutiveCountedFailures: 3 };
    const base = { budget: LIBRARY_RETRY_BUDGET, history, nowMs: 1600 };
    expect(brief(decideFailover(input({ ...base, error: E.overloaded })))).toBe('fail-over:retry-budget');
    expect(brief(decideFailover(input({ ...base, error: E.server })))).toBe('retry:transient:2000');
  });

  it('every decision names the failure class it was made on', () => {
    expect(decideFailover(input({ error: E.stall }))).toEqual({ action: 'fail-over', reason: 'stall', failure: 'stall' });
  });
});
