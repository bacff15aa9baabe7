import { describe, expect, it } from 'vitest';
import { TurnError } from '../errors/turn-error.js';
import {
  UPSTREAM_TIME_LIMIT_DEFAULTS,
  createUpstreamTimeLimitError,
  pickUpstreamTimeLimit,
  resolveUpstreamTimeLimits,
} from './upstream-time-limits.js';

function thrown(run: () => unknown): TurnError {
  try {
    run();
  } catch (error) {
    if (TurnError.isInstance(error)) return error;
  }
  throw new Error('expected a TurnError');
}

describe('R11.4 upstream time limits', () => {
  it('defaults let a thinking stream that pings every 30 s survive, before and after output', () => {
    const limits = resolveUpstreamTimeLimits(undefined);
    expect(limits).toEqual(UPSTREAM_TIME_LIMIT_DEFAULTS);
    // Anthropic pings / OpenAI keep-alive events arrive every ~15–30 s while a model thinks (decision 0400).
    expect(limits.stallBeforeOutputMs).toBeGreaterThanOrEqual(4 * 30_000);
    expect(limits.stallAfterOutputMs).toBeGreaterThanOrEqual(2 * 30_000);
  });

  it('a limit may be raised, lowered or turned off; unknown keys and bad values name the key and the valid ones', () => {
    const limits = resolveUpstreamTimeLimits({ firstTokenMs: 500, stallAfterOutputMs: false, connectMs: 30_000 });
    expect(limits).toMatchObject({ firstTokenMs: 500, stallAfterOutputMs: undefined, connectMs: 30_000, responseHeadersMs: 60_000 });
    const unknown = thrown(() => resolveUpstreamTimeLimits({ firstByteMs: 1 } as never));
    expect(unknown.code).toBe('INVALID_UPSTREAM_TIME_LIMIT');
    expect(unknown.message).toBe(
      'timeLimits.firstByteMs is not a known limit; valid: connectMs, responseHeadersMs, firstTokenMs, stallBeforeOutputMs, stallAfterOutputMs.',
    );
    expect(thrown(() => resolveUpstreamTimeLimits({ connectMs: 0 })).message).toMatch(/timeLimits\.connectMs must be false or whole milliseconds/);
    expect(thrown(() => resolveUpstreamTimeLimits({ connectMs: 1.5 })).details).toEqual({ option: 'connectMs' });
    expect(thrown(() => resolveUpstreamTimeLimits([] as never)).code).toBe('INVALID_UPSTREAM_TIME_LIMIT');
  });

  it.each([
    ['connecting', false, 'connectMs'],
    ['awaiting-headers', false, 'responseHeadersMs'],
    ['awaiting-first-record', false, 'firstTokenMs'],
    ['streaming', false, 'stallBeforeOutputMs'],
    ['streaming', true, 'stallAfterOutputMs'],
  ] as const)('in phase %s (visible output %s) the %s limit watches', (phase, visible, name) => {
    const limits = resolveUpstreamTimeLimits({});
    expect(pickUpstreamTimeLimit(limits, phase, visible)).toEqual({ name, ms: UPSTREAM_TIME_LIMIT_DEFAULTS[name] });
  });

  it('a limit turned off watches nothing', () => {
    expect(pickUpstreamTimeLimit(resolveUpstreamTimeLimits({ firstTokenMs: false }), 'awaiting-first-record', false)).toBeUndefined();
  });

  it.each([
    ['connectMs', false, 'UPSTREAM_CONNECT_TIMEOUT', true],
    ['responseHeadersMs', false, 'UPSTREAM_HEADERS_TIMEOUT', true],
    ['firstTokenMs', false, 'FIRST_TOKEN_TIMEOUT', true],
    ['stallBeforeOutputMs', false, 'STREAM_STALL', true],
    ['stallAfterOutputMs', true, 'STREAM_STALL', false],
  ] as const)('%s ends an attempt with its own code %s', (name, delivered, code, retryable) => {
    const error = createUpstreamTimeLimitError(name, 1500, { outputDelivered: delivered, upstream: 'primary', model: 'm' });
    expect(error).toMatchObject({ kind: 'timeout', code, retryable });
    expect(error.message).toMatch(/missed its 1\.5 s .* time limit\.$/);
    expect(error.details).toEqual({ timeLimit: name, limitSeconds: 1.5, upstream: 'primary', model: 'm' });
  });
});
