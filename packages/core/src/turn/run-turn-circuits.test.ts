import { describe, expect, it } from 'vitest';
import { CircuitBreakers, type CircuitStateChange } from '../failover/circuit-breaker.js';
import { INTERACTIVE_RETRY_BUDGET } from '../failover/retry-budget.js';
import type { TurnEvent } from '../types/turn-event.js';
import { collectTurnEvents, textOf } from './fake-wire.test-helper.js';
import { PRIMARY, SECOND, type ChainReply } from './fake-chain-wire.test-helper.js';
import { startChainTurn } from './chain-turn.test-helper.js';

const BUDGET = { ...INTERACTIVE_RETRY_BUDGET, initialDelayMs: 1, maxDelayMs: 1, burst: undefined, failOverAfter: 2 };
const answer = (text: string): ChainReply => ({ lines: [{ t: text }, { end: 'stop' }] });
const down: ChainReply = { status: 503 };

/** One process's circuits on a clock the test moves. */
function circuits() {
  let now = 1_000_000;
  const changes: string[] = [];
  const breakers = new CircuitBreakers({ failureThreshold: 2, coolDownMs: 30_000, now: () => now, onStateChange: (change: CircuitStateChange) => void changes.push(`${change.key.upstream}/${change.key.model}:${change.to}`) });
  return { breakers, changes, advance: (ms: number) => void (now += ms), now: () => now };
}

function turnOn(script: Record<string, ChainReply[]>, breakers: CircuitBreakers, now: () => number) {
  return startChainTurn(script, { retryBudget: BUDGET, circuitBreakers: breakers, now });
}

const reasons = (events: TurnEvent[]) => events.flatMap((event) => (event.type === 'fallback' ? [event.reason] : []));

describe('R11.5 a circuit per upstream and model', () => {
  it('opens after consecutive failures, sends turns straight to the fallback, lets one probe through after the cool-down, closes on success', async () => {
    const { breakers, changes, advance, now } = circuits();
    const first = turnOn({ [PRIMARY]: [down, down], [SECOND]: [answer('one')] }, breakers, now);
    expect(textOf(await collectTurnEvents(first.run))).toBe('one');
    expect(changes).toEqual(['primary/primary-model:open']);

    // Open: no request to the primary at all.
    const second = turnOn({ [PRIMARY]: [answer('never')], [SECOND]: [answer('two')] }, breakers, now);
    const secondEvents = await collectTurnEvents(second.run);
    expect(second.wire.to(PRIMARY)).toHaveLength(0);
    expect(reasons(secondEvents)).toEqual(['circuit-open']);
    expect((await second.run.result).chain?.[0]).toMatchObject({ outcome: 'skipped', skippedBecause: 'circuit-open', attempts: 0 });

    // After the cool-down, one probe; it answers and the circuit closes.
    advance(30_000);
    const third = turnOn({ [PRIMARY]: [answer('probe')], [SECOND]: [answer('unused')] }, breakers, now);
    expect(textOf(await collectTurnEvents(third.run))).toBe('probe');
    expect(changes).toEqual(['primary/primary-model:open', 'primary/primary-model:half-open', 'primary/primary-model:closed']);
  });

  it('a content filter or a bad request never counts against the upstream', async () => {
    const { breakers, now } = circuits();
    for (let turn = 0; turn < 3; turn += 1) {
      const { run } = turnOn({ [PRIMARY]: [{ status: 400, body: 'content filter' }] }, breakers, now);
      await collectTurnEvents(run);
    }
    expect(breakers.stateOf({ upstream: 'primary', model: 'primary-model' })).toBe('closed');
  });

  it('every circuit open: the first destination is tried anyway', async () => {
    const { breakers, now } = circuits();
    const opened = turnOn({ [PRIMARY]: [down, down], [SECOND]: [down, down] }, breakers, now);
    await collectTurnEvents(opened.run);
    expect(breakers.snapshot().map((circuit) => circuit.state)).toEqual(['open', 'open']);
    const { run, wire } = turnOn({ [PRIMARY]: [answer('tried anyway')], [SECOND]: [answer('not this one')] }, breakers, now);
    expect(textOf(await collectTurnEvents(run))).toBe('tried anyway');
    expect(wire.requests.map((request) => request.baseUrl)).toEqual([PRIMARY]);
  });
});
