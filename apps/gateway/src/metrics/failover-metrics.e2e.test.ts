import { fault } from '@turnguard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FULL_DEFAULT_ANSWER, SHORT_SETTINGS, answerFrom, restOfDefaultAnswer, startFailoverHarness, type FailoverHarness } from '../testing/failover-harness.test-helper.js';

/*
 * R12.2 with R11: what fail-over did reaches the Prometheus scrape — a
 * fallback by its reason, a circuit that opened and the fallback it then
 * caused, and a mid-answer continuation — read from GET /metrics as a
 * scraper reads it, after turns driven through the gateway by the official SDKs.
 */
let harness: FailoverHarness;
let scrape: string;

/** The value of one series in the exposition text, by its exact labels (in any order); undefined when absent. */
function sample(metric: string, labels: Record<string, string>): number | undefined {
  for (const line of scrape.split('\n')) {
    const match = /^([a-z_]+)\{(.*)\} (\S+)$/.exec(line);
    if (match === null || match[1] !== metric) continue;
    const found = Object.fromEntries([...match[2]!.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((pair) => [pair[1], pair[2]]));
    if (Object.keys(found).length === Object.keys(labels).length && Object.entries(labels).every(([name, value]) => found[name] === value)) return Number(match[3]);
  }
  return undefined;
}

beforeAll(async () => {
  harness = await startFailoverHarness(SHORT_SETTINGS, {
    continuation: 'prefill',
    // Opens after the first turn's three failed attempts; the cool-down outlasts the test.
    circuitBreaker: { failureThreshold: 3, coolDownMs: 600_000, maxCoolDownMs: 600_000 },
  });
  harness.upstream.model('metrics-primary').always(fault.unavailable());
  harness.upstream.model('metrics-fallback').always(answerFrom('fallback'));
  // Turn 1: three 503s spend the primary's budget and open its circuit; the fallback answers.
  expect((await harness.ask('chat', 'stream', 'metrics-primary', { fallbacks: ['metrics-fallback'] })).error).toBeUndefined();
  // Turn 2: the open circuit spares the primary; straight to the fallback.
  expect((await harness.ask('chat', 'json', 'metrics-primary', { fallbacks: ['metrics-fallback'] })).error).toBeUndefined();
  // Turn 3: a cut mid-answer, continued.
  harness.upstream.model('metrics-continued').queue(fault.cut(), restOfDefaultAnswer);
  const continued = await harness.ask('messages', 'stream', 'metrics-continued');
  expect(continued.text).toBe(FULL_DEFAULT_ANSWER);
  await harness.sink.waitForTurns(3);
  const response = await fetch(`${harness.gateway.url}/metrics`);
  expect(response.status).toBe(200);
  scrape = await response.text();
}, 30_000);
afterAll(async () => harness?.close());

describe('fail-over in the Prometheus scrape (R12.2, R11.5–R11.7)', () => {
  it('each fallback by the model replaced, the model used and the reason', () => {
    const fallback = { protocol: 'chat', from_model: 'metrics-primary', to_model: 'metrics-fallback' };
    expect(harness.upstream.requestsFor('metrics-primary')).toHaveLength(3);
    expect(sample('turnguard_fallbacks_total', { ...fallback, reason: 'OVERLOADED' })).toBe(1);
    expect(sample('turnguard_fallbacks_total', { ...fallback, reason: 'circuit-open' })).toBe(1);
  });

  it('the circuit that opened, as its state gauge', () => {
    const circuit = { upstream: 'chat', model: 'metrics-primary' };
    expect(sample('turnguard_circuit_state', { ...circuit, state: 'open' })).toBe(1);
    expect(sample('turnguard_circuit_state', { ...circuit, state: 'closed' })).toBe(0);
    expect(sample('turnguard_circuit_state', { ...circuit, state: 'half_open' })).toBe(0);
  });

  it('the continuation, by how it ended', () => {
    expect(sample('turnguard_continuations_total', { protocol: 'messages', model: 'metrics-continued', result: 'completed' })).toBe(1);
  });

  it('the physical requests of each model, failed and ok', () => {
    expect(sample('turnguard_physical_requests_total', { protocol: 'chat', model: 'metrics-primary', result: 'failed' })).toBe(3);
    expect(sample('turnguard_physical_requests_total', { protocol: 'chat', model: 'metrics-fallback', result: 'ok' })).toBe(2);
    expect(sample('turnguard_physical_requests_total', { protocol: 'messages', model: 'metrics-continued', result: 'ok' })).toBe(1);
  });
});
