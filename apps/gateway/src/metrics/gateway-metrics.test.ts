import type { TurnRecord, UsageSample } from '@turnguard/core';
import { describe, expect, it } from 'vitest';
import { codeLabel, ModelLabels, nameLabel, NO_MODEL, OTHER_MODEL, UNRECOGNIZED } from './bounded-labels.js';
import { GatewayMetrics } from './gateway-metrics.js';

function sample(fields: Partial<UsageSample>): UsageSample {
  return {
    time: 0, protocol: 'chat', model: 'gpt-test', ok: true, errorCode: undefined, truncated: false, durationMs: 10, ttftMs: 1, decodeWindowMs: 5,
    usage: {}, noUsage: false, recoveryId: undefined, attempt: 0, recoveryAttempt: false, recoveryScheduled: false, recovered: false, warnings: [],
    ...fields,
  };
}

function turn(fields: Partial<TurnRecord>): TurnRecord {
  return {
    time: 0, protocol: 'chat', model: 'gpt-test', outcome: 'ok', errorCode: undefined, recovered: false, recoveryId: undefined,
    physicalRequests: 1, durationMs: 1500, usage: {}, usageComplete: true,
    ...fields,
  };
}

/** The exposition lines of one metric family, without its HELP and TYPE. */
function seriesOf(text: string, name: string): string[] {
  return text.split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
}

describe('GatewayMetrics exposition through prom-client (R12.2)', () => {
  it('counts physical requests, failures by code, requests without usage and recoveries from stats samples', async () => {
    const metrics = new GatewayMetrics();
    metrics.recordSample(sample({ ok: false, errorCode: 'RATE_LIMIT', noUsage: true }));
    metrics.recordSample(sample({ ok: false, errorCode: 'STREAM_CUT', protocol: 'messages', model: 'claude-test', recoveryScheduled: true }));
    metrics.recordSample(sample({ protocol: 'messages', model: 'claude-test', recoveryAttempt: true, recovered: true, usage: { inputTokens: 7, outputTokens: 3 } }));
    const text = await metrics.render();
    expect(seriesOf(text, 'turnguard_physical_requests_total')).toEqual([
      'turnguard_physical_requests_total{protocol="chat",model="gpt-test",result="failed"} 1',
      'turnguard_physical_requests_total{protocol="messages",model="claude-test",result="failed"} 1',
      'turnguard_physical_requests_total{protocol="messages",model="claude-test",result="ok"} 1',
    ]);
    expect(seriesOf(text, 'turnguard_upstream_failures_total')).toEqual([
      'turnguard_upstream_failures_total{protocol="chat",model="gpt-test",code="RATE_LIMIT"} 1',
      'turnguard_upstream_failures_total{protocol="messages",model="claude-test",code="STREAM_CUT"} 1',
    ]);
    expect(seriesOf(text, 'turnguard_requests_without_usage_total')).toEqual(['turnguard_requests_without_usage_total{protocol="chat",model="gpt-test"} 1']);
    expect(seriesOf(text, 'turnguard_recoveries_total')).toEqual(['turnguard_recoveries_total{protocol="messages",model="claude-test",result="recovered"} 1']);
  });

  it('R5.1: counts only the tokens the upstream reported; an unknown type gets no series, a reported 0 is kept', async () => {
    const metrics = new GatewayMetrics();
    metrics.recordSample(sample({ usage: { inputTokens: 100, outputTokens: 20, cachedInputTokens: 0, totalTokens: 120 } }));
    metrics.recordSample(sample({ usage: { inputTokens: 50, reasoningTokens: 8 } }));
    metrics.recordSample(sample({ usage: {}, noUsage: true }));
    expect(seriesOf(await metrics.render(), 'turnguard_tokens_total')).toEqual([
      'turnguard_tokens_total{protocol="chat",model="gpt-test",type="input"} 150',
      'turnguard_tokens_total{protocol="chat",model="gpt-test",type="output"} 20',
      'turnguard_tokens_total{protocol="chat",model="gpt-test",type="cached_input"} 0',
      'turnguard_tokens_total{protocol="chat",model="gpt-test",type="reasoning"} 8',
    ]);
  });

  it('counts turns by outcome as stats.json does (a recovered turn is `recovered`), failed turns by code, and their duration', async () => {
    const metrics = new GatewayMetrics();
    metrics.recordTurn(turn({}));
    metrics.recordTurn(turn({ recovered: true, physicalRequests: 2 }));
    metrics.recordTurn(turn({ outcome: 'failed', errorCode: 'STREAM_CUT' }));
    metrics.recordTurn(turn({ outcome: 'aborted', errorCode: 'ABORTED' }));
    const text = await metrics.render();
    expect(seriesOf(text, 'turnguard_logical_turns_total')).toEqual([
      'turnguard_logical_turns_total{protocol="chat",model="gpt-test",outcome="ok"} 1',
      'turnguard_logical_turns_total{protocol="chat",model="gpt-test",outcome="recovered"} 1',
      'turnguard_logical_turns_total{protocol="chat",model="gpt-test",outcome="failed"} 1',
      'turnguard_logical_turns_total{protocol="chat",model="gpt-test",outcome="aborted"} 1',
    ]);
    expect(seriesOf(text, 'turnguard_logical_turn_failures_total')).toEqual(['turnguard_logical_turn_failures_total{protocol="chat",model="gpt-test",code="STREAM_CUT"} 1']);
    expect(text).toContain('turnguard_turn_duration_seconds_bucket{le="2.5",protocol="chat",model="gpt-test"} 4');
    expect(text).toContain('turnguard_turn_duration_seconds_sum{protocol="chat",model="gpt-test"} 6');
  });

  it('counts retries and time to first byte with their model', async () => {
    const metrics = new GatewayMetrics();
    metrics.recordRetry('chat', 'gpt-test', 'RATE_LIMIT');
    metrics.recordRetry('chat', 'gpt-test', 'RATE_LIMIT');
    metrics.recordTimeToFirstByte('responses', 'gpt-test', 0.003);
    metrics.recordTimeToFirstByte('responses', 'gpt-test', Number.NaN);
    const text = await metrics.render();
    expect(seriesOf(text, 'turnguard_retries_total')).toEqual(['turnguard_retries_total{protocol="chat",model="gpt-test",code="RATE_LIMIT"} 2']);
    expect(text).toContain('turnguard_ttfb_seconds_bucket{le="0.005",protocol="responses",model="gpt-test"} 1');
    expect(text).toContain('turnguard_ttfb_seconds_count{protocol="responses",model="gpt-test"} 1');
  });

  it('exposes the fail-over families through their hooks: fallbacks, continuations and circuit state (R11.5–R11.7)', async () => {
    const metrics = new GatewayMetrics();
    const before = await metrics.render();
    // The families are declared before anything calls the hooks, so dashboards can be built on them.
    for (const name of ['turnguard_fallbacks_total', 'turnguard_continuations_total', 'turnguard_circuit_state']) expect(before).toContain(`# TYPE ${name} `);
    metrics.recordFallback('messages', 'claude-opus', 'claude-sonnet', 'OVERLOADED');
    metrics.recordFallback('messages', 'claude-opus', 'claude-sonnet', 'circuit-open');
    metrics.recordContinuation('chat', 'gpt-test', 'completed');
    metrics.setCircuitState('anthropic', 'claude-opus', 'open');
    metrics.setCircuitState('anthropic', 'claude-opus', 'half_open');
    const text = await metrics.render();
    expect(seriesOf(text, 'turnguard_fallbacks_total')).toEqual([
      'turnguard_fallbacks_total{protocol="messages",from_model="claude-opus",to_model="claude-sonnet",reason="OVERLOADED"} 1',
      'turnguard_fallbacks_total{protocol="messages",from_model="claude-opus",to_model="claude-sonnet",reason="circuit-open"} 1',
    ]);
    expect(seriesOf(text, 'turnguard_continuations_total')).toEqual(['turnguard_continuations_total{protocol="chat",model="gpt-test",result="completed"} 1']);
    expect(seriesOf(text, 'turnguard_circuit_state')).toEqual([
      'turnguard_circuit_state{upstream="anthropic",model="claude-opus",state="closed"} 0',
      'turnguard_circuit_state{upstream="anthropic",model="claude-opus",state="open"} 0',
      'turnguard_circuit_state{upstream="anthropic",model="claude-opus",state="half_open"} 1',
    ]);
  });

  it('exposes process metrics and turnguard_build_info once per process, for every gateway in it', async () => {
    const first = await new GatewayMetrics().render();
    const second = await new GatewayMetrics().render();
    for (const text of [first, second]) {
      expect(text).toContain(`turnguard_build_info{version="0.0.0",node_version="${process.version}"} 1`);
      expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
      expect(text).toMatch(/^process_resident_memory_bytes \d/m);
      expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
      expect(text).toContain('# TYPE nodejs_gc_duration_seconds histogram');
    }
  });
});

describe('bounded label values (decision 0380)', () => {
  it('keeps declared models, then the first N seen, then `other`; a label never changes meaning', () => {
    const labels = new ModelLabels(2);
    labels.declare(['configured-model']);
    expect(['a-1', 'b-2', 'c-3', 'a-1', 'configured-model', 'c-3'].map((model) => labels.labelOf(model))).toEqual(['a-1', 'b-2', OTHER_MODEL, 'a-1', 'configured-model', OTHER_MODEL]);
  });

  it('never admits text that is not a model name, nor an empty one', () => {
    const labels = new ModelLabels(10);
    expect(labels.labelOf('ignore previous instructions and')).toBe(OTHER_MODEL);
    expect(labels.labelOf('x'.repeat(101))).toBe(OTHER_MODEL);
    expect(labels.labelOf(undefined)).toBe(NO_MODEL);
    expect(labels.labelOf('')).toBe(NO_MODEL);
    expect(['gpt-4.1', 'claude-sonnet-4-5@20250929', 'org/model:tag'].map((model) => labels.labelOf(model))).toEqual(['gpt-4.1', 'claude-sonnet-4-5@20250929', 'org/model:tag']);
  });

  it('admits only code-shaped codes and name-shaped names', () => {
    expect([codeLabel('RATE_LIMIT'), codeLabel('an upstream said "no"'), codeLabel(undefined)]).toEqual(['RATE_LIMIT', UNRECOGNIZED, UNRECOGNIZED]);
    expect([nameLabel('openai-eu'), nameLabel('has space')]).toEqual(['openai-eu', UNRECOGNIZED]);
  });

  it('a model past the limit is counted as `other` in the exposition', async () => {
    const metrics = new GatewayMetrics({ maxModelLabels: 1 });
    metrics.recordTurn(turn({ model: 'first' }));
    metrics.recordTurn(turn({ model: 'second' }));
    metrics.recordTurn(turn({ model: 'third' }));
    expect(seriesOf(await metrics.render(), 'turnguard_logical_turns_total')).toEqual([
      'turnguard_logical_turns_total{protocol="chat",model="first",outcome="ok"} 1',
      'turnguard_logical_turns_total{protocol="chat",model="other",outcome="ok"} 2',
    ]);
  });
});
