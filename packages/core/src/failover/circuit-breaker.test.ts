import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TurnError } from '../errors/turn-error.js';
import { CircuitBreakers, type CircuitAdmission, type CircuitPermit, type CircuitStateChange } from './circuit-breaker.js';

const primary = { upstream: 'anthropic', model: 'claude-sonnet-4-5' };
const other = { upstream: 'anthropic', model: 'claude-haiku-4-5' };

function permitOf(admission: CircuitAdmission): CircuitPermit {
  if (!admission.admitted) throw new Error(`refused while ${admission.state}`);
  return admission.permit;
}

describe('R11.5 circuit breaker per upstream and model (fake timers: Date.now is the clock)', () => {
  let changes: CircuitStateChange[];
  let breakers: CircuitBreakers;

  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
    changes = [];
    breakers = new CircuitBreakers({ failureThreshold: 3, coolDownMs: 10_000, maxCoolDownMs: 25_000, onStateChange: (change) => changes.push(change) });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const failTimes = (count: number, key = primary): void => {
    for (let index = 0; index < count; index += 1) permitOf(breakers.admit(key)).fail();
  };

  it('opens after N consecutive failures and refuses at once while open', () => {
    failTimes(2);
    expect(breakers.stateOf(primary)).toBe('closed');
    failTimes(1);
    expect(breakers.stateOf(primary)).toBe('open');
    expect(breakers.admit(primary)).toEqual({ admitted: false, state: 'open', retryAt: 1_010_000 });
    expect(changes).toEqual([{ key: primary, from: 'closed', to: 'open', at: 1_000_000, consecutiveFailures: 3, coolDownMs: 10_000 }]);
  });

  it('a success in between resets the count: only consecutive failures open it', () => {
    failTimes(2);
    permitOf(breakers.admit(primary)).succeed();
    failTimes(2);
    expect(breakers.stateOf(primary)).toBe('closed');
  });

  it('keys are independent: another model of the same upstream stays closed', () => {
    failTimes(3);
    expect(breakers.admit(other).admitted).toBe(true);
  });

  it('after the cool-down exactly one probe goes through; everyone else goes to the fallback without waiting', () => {
    failTimes(3);
    vi.advanceTimersByTime(9_999);
    expect(breakers.admit(primary).admitted).toBe(false);
    vi.advanceTimersByTime(1);
    const probe = permitOf(breakers.admit(primary));
    expect(probe.probe).toBe(true);
    expect(breakers.stateOf(primary)).toBe('half-open');
    expect(breakers.admit(primary)).toMatchObject({ admitted: false, state: 'half-open' });
    probe.succeed();
    expect(breakers.stateOf(primary)).toBe('closed');
    expect(permitOf(breakers.admit(primary)).probe).toBe(false);
    expect(changes.map((change) => `${change.from}→${change.to}`)).toEqual(['closed→open', 'open→half-open', 'half-open→closed']);
  });

  it('a failed probe opens it again with a doubled cool-down, capped', () => {
    failTimes(3);
    vi.advanceTimersByTime(10_000);
    permitOf(breakers.admit(primary)).fail();
    expect(changes.at(-1)).toMatchObject({ from: 'half-open', to: 'open', coolDownMs: 20_000 });
    vi.advanceTimersByTime(19_999);
    expect(breakers.admit(primary).admitted).toBe(false);
    vi.advanceTimersByTime(1);
    permitOf(breakers.admit(primary)).fail();
    expect(changes.at(-1)).toMatchObject({ to: 'open', coolDownMs: 25_000 });
    vi.advanceTimersByTime(25_000);
    permitOf(breakers.admit(primary)).succeed();
    // Closed again: the next opening starts from the base cool-down.
    failTimes(3);
    expect(changes.at(-1)).toMatchObject({ to: 'open', coolDownMs: 10_000 });
  });

  it('a probe released without a verdict (abort, bad request) hands the slot to the next caller', () => {
    failTimes(3);
    vi.advanceTimersByTime(10_000);
    permitOf(breakers.admit(primary)).release();
    expect(breakers.stateOf(primary)).toBe('half-open');
    expect(permitOf(breakers.admit(primary)).probe).toBe(true);
  });

  it('reports count once; late outcomes of requests admitted before the opening change nothing', () => {
    const early = permitOf(breakers.admit(primary));
    const late = permitOf(breakers.admit(primary));
    failTimes(3);
    early.succeed();
    late.fail();
    late.fail();
    expect(breakers.stateOf(primary)).toBe('open');
    expect(changes).toHaveLength(1);
  });

  it('the snapshot lists every circuit with its state, for /metrics', () => {
    failTimes(3);
    failTimes(1, other);
    expect(breakers.snapshot()).toEqual([
      { key: primary, state: 'open', consecutiveFailures: 3 },
      { key: other, state: 'closed', consecutiveFailures: 1 },
    ]);
  });

  it('a listener that throws never breaks routing', () => {
    const noisy = new CircuitBreakers({
      failureThreshold: 1,
      onStateChange: () => {
        throw new Error('metrics down');
      },
    });
    permitOf(noisy.admit(primary)).fail();
    expect(noisy.stateOf(primary)).toBe('open');
  });

  it('defaults follow Envoy outlier detection: 5 consecutive failures, 30 s', () => {
    const defaults = new CircuitBreakers();
    for (let index = 0; index < 4; index += 1) permitOf(defaults.admit(primary)).fail();
    expect(defaults.stateOf(primary)).toBe('closed');
    permitOf(defaults.admit(primary)).fail();
    expect(defaults.admit(primary)).toMatchObject({ admitted: false, retryAt: 1_030_000 });
  });

  it('bad options are a typed error naming the option', () => {
    const error = (() => {
      try {
        new CircuitBreakers({ failureThreshold: 0 });
      } catch (thrown) {
        return thrown;
      }
      return undefined;
    })();
    expect(TurnError.isInstance(error) && error.code).toBe('INVALID_CIRCUIT_BREAKER_OPTION');
  });
});
