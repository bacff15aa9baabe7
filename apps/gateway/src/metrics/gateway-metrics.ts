import type { Protocol, StatsSink, TurnRecord, UsageSample } from '@turnguard/core';
import { Counter, Histogram, Registry } from './prometheus-registry.js';

/** Seconds; from sub-millisecond TTFB on loopback to the 480 s turn limit (R4.7). */
const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/**
 * What `GET /metrics` exposes, so several gateways can be watched by an
 * existing monitoring stack: physical requests next to logical turns (the
 * same split as stats.json, R6), retries, recoveries, turn latency and TTFB.
 * Content-free by construction: labels are protocols, outcomes and codes.
 */
export class GatewayMetrics {
  readonly registry = new Registry();
  readonly physicalRequests = this.registry.add(
    new Counter('turnguard_physical_requests_total', 'HTTP requests sent upstream, by protocol and result.'),
  );
  readonly turns = this.registry.add(new Counter('turnguard_logical_turns_total', 'Logical turns, by protocol and outcome (ok, failed, aborted).'));
  readonly recoveries = this.registry.add(
    new Counter('turnguard_recoveries_total', 'Recovery segments sent after a cut thinking stream (R4), by result.'),
  );
  readonly retries = this.registry.add(new Counter('turnguard_retries_total', 'R1 retries waited for, by protocol and error code.'));
  readonly rejected = this.registry.add(
    new Counter('turnguard_rejected_requests_total', 'Client requests refused by the gateway before any upstream request, by code.'),
  );
  readonly turnDuration = this.registry.add(
    new Histogram('turnguard_turn_duration_seconds', 'Logical turn duration, from segment 1 start to the final event.', LATENCY_BUCKETS),
  );
  readonly ttfb = this.registry.add(
    new Histogram('turnguard_ttfb_seconds', 'From the client request arriving to the first response byte written to it.', LATENCY_BUCKETS),
  );

  recordSample(sample: UsageSample): void {
    this.physicalRequests.inc({ protocol: sample.protocol, result: sample.ok ? 'ok' : 'failed' });
    // Counted where the recovery request really went out (an abort between segments sends none, R8.4).
    if (sample.recoveryAttempt) this.recoveries.inc({ protocol: sample.protocol, result: sample.recovered ? 'recovered' : 'failed' });
  }

  recordTurn(turn: TurnRecord): void {
    this.turns.inc({ protocol: turn.protocol, outcome: turn.outcome });
    this.turnDuration.observe(turn.durationMs / 1000, { protocol: turn.protocol });
  }

  recordRetry(protocol: Protocol, code: string): void {
    this.retries.inc({ protocol, code });
  }

  render(): string {
    return this.registry.render();
  }
}

/** A sink that counts into the metrics and forwards to the stats store, if any. Never throws (core's sink rule). */
export function createMeteredSink(metrics: GatewayMetrics, store: StatsSink | undefined): StatsSink {
  return {
    recordUsage(sample) {
      metrics.recordSample(sample);
      return store?.recordUsage(sample);
    },
    recordTurn(turn) {
      metrics.recordTurn(turn);
      return store?.recordTurn(turn);
    },
  };
}
