import { INTERACTIVE_RETRY_BUDGET, UPSTREAM_TIME_LIMIT_DEFAULTS } from '@turnguard/core';
import { describe, expect, it } from 'vitest';
import { errorOf } from '../testing/error-of.test-helper.js';
import { buildRetryBudget } from './failover-config.js';
import { DEFAULT_GATEWAY_CONFIG, resolveGatewayConfig } from './gateway-config.js';
import { loadGatewayConfig } from './load-config.js';

describe('R11.3–R11.6 the gateway\'s fail-over settings', () => {
  it('defaults: decision 0400\'s time limits, Envoy-like circuits, no continuation, the interactive budget', () => {
    expect(DEFAULT_GATEWAY_CONFIG.timeLimits).toEqual(UPSTREAM_TIME_LIMIT_DEFAULTS);
    expect(DEFAULT_GATEWAY_CONFIG.circuitBreaker).toEqual({ failureThreshold: 5, coolDownMs: 30_000, maxCoolDownMs: 300_000 });
    expect(DEFAULT_GATEWAY_CONFIG.continuation).toBe('off');
    expect(buildRetryBudget(DEFAULT_GATEWAY_CONFIG.retry)).toEqual(INTERACTIVE_RETRY_BUDGET);
  });

  it('each key lays over its default; `retry` keys shape the budget', () => {
    const config = resolveGatewayConfig({ timeLimits: { stallAfterOutputMs: 5000, connectMs: false }, circuitBreaker: { failureThreshold: 2 }, continuation: 'prefill', retry: { maxRetries: 2, failOverAfter: 1, retryWindowMs: 5000 } });
    expect(config.timeLimits).toEqual({ ...UPSTREAM_TIME_LIMIT_DEFAULTS, stallAfterOutputMs: 5000, connectMs: false });
    expect(config.circuitBreaker).toEqual({ failureThreshold: 2, coolDownMs: 30_000, maxCoolDownMs: 300_000 });
    expect(config.continuation).toBe('prefill');
    expect(buildRetryBudget(config.retry)).toMatchObject({ maxAttemptsPerTarget: 3, failOverAfter: 1, retryWindowMs: 5000, burst: INTERACTIVE_RETRY_BUDGET.burst });
    expect(resolveGatewayConfig({ timeLimits: false, circuitBreaker: false }).circuitBreaker).toBe(false);
  });

  it('bad values are refused at start, naming the key', () => {
    expect(errorOf(() => resolveGatewayConfig({ timeLimits: { stallMs: 5 } as never })).message).toMatch(/timeLimits\.stallMs is not a known limit/);
    expect(errorOf(() => resolveGatewayConfig({ circuitBreaker: { threshold: 2 } as never })).message).toBe('Unknown option "circuitBreaker.threshold". Known: failureThreshold, coolDownMs, maxCoolDownMs.');
    expect(errorOf(() => resolveGatewayConfig({ continuation: 'yes' as never })).message).toBe('continuation must be "off" or "prefill".');
    expect(errorOf(() => resolveGatewayConfig({ retry: { failOverAfter: 0 } })).message).toMatch(/retry.failOverAfter must be an integer from 1/);
  });

  it('a resolved config handed back in (the CLI starts the gateway with it) is accepted as it is', () => {
    const routing = { upstreams: { deepseek: { protocol: 'chat', baseUrl: 'https://api.deepseek.com/v1', apiKey: { env: 'DEEPSEEK_API_KEY' }, prefill: 'prefix-flag' } }, fallbacks: { '*': ['x'] } };
    const resolved = resolveGatewayConfig({ routing, timeLimits: { firstTokenMs: 1000 }, circuitBreaker: false });
    expect(resolveGatewayConfig(resolved)).toEqual(resolved);
  });

  it('flags and the environment: --time-limits, --continuation', async () => {
    const { config } = await loadGatewayConfig({ argv: ['--time-limits', '{"firstTokenMs":1000}', '--continuation', 'prefill'], env: {}, defaultStatsPath: undefined });
    expect(config.timeLimits.firstTokenMs).toBe(1000);
    expect(config.continuation).toBe('prefill');
    const off = await loadGatewayConfig({ argv: [], env: { TURNGUARD_TIME_LIMITS: 'off', TURNGUARD_CONTINUATION: 'prefill' }, defaultStatsPath: undefined });
    expect(Object.values(off.config.timeLimits)).toEqual([false, false, false, false, false]);
  });
});
