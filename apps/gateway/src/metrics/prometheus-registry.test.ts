import { describe, expect, it } from 'vitest';
import { GatewayMetrics } from './gateway-metrics.js';
import { Counter, Histogram, Registry } from './prometheus-registry.js';

describe('Prometheus text exposition', () => {
  it('renders counters with sorted, escaped labels', () => {
    const registry = new Registry();
    const counter = registry.add(new Counter('x_total', 'Things.'));
    counter.inc({ b: '2', a: 'q"\\' });
    counter.inc({ b: '2', a: 'q"\\' }, 2);
    expect(registry.render()).toBe('# HELP x_total Things.\n# TYPE x_total counter\nx_total{a="q\\"\\\\",b="2"} 3\n');
  });

  it('renders histograms with cumulative buckets, +Inf, sum and count', () => {
    const histogram = new Histogram('lat_seconds', 'Latency.', [0.1, 1]);
    histogram.observe(0.05, { p: 'chat' });
    histogram.observe(0.5, { p: 'chat' });
    histogram.observe(3, { p: 'chat' });
    expect(histogram.render().split('\n')).toEqual([
      '# HELP lat_seconds Latency.',
      '# TYPE lat_seconds histogram',
      'lat_seconds_bucket{p="chat",le="0.1"} 1',
      'lat_seconds_bucket{p="chat",le="1"} 2',
      'lat_seconds_bucket{p="chat",le="+Inf"} 3',
      'lat_seconds_sum{p="chat"} 3.55',
      'lat_seconds_count{p="chat"} 3',
    ]);
  });

  it('counts physical requests, turns and recoveries from stats records', () => {
    const metrics = new GatewayMetrics();
    const sample = { protocol: 'chat', ok: false, recoveryAttempt: false, recovered: false } as Parameters<GatewayMetrics['recordSample']>[0];
    metrics.recordSample(sample);
    metrics.recordSample({ ...sample, ok: true, recoveryAttempt: true, recovered: true });
    metrics.recordTurn({ protocol: 'chat', outcome: 'ok', durationMs: 1500 } as Parameters<GatewayMetrics['recordTurn']>[0]);
    const text = metrics.render();
    expect(text).toContain('turnguard_physical_requests_total{protocol="chat",result="failed"} 1');
    expect(text).toContain('turnguard_physical_requests_total{protocol="chat",result="ok"} 1');
    expect(text).toContain('turnguard_recoveries_total{protocol="chat",result="recovered"} 1');
    expect(text).toContain('turnguard_logical_turns_total{outcome="ok",protocol="chat"} 1');
    expect(text).toContain('turnguard_turn_duration_seconds_bucket{protocol="chat",le="2.5"} 1');
  });
});
