import type { Protocol, StatsSink, TurnRecord, UsageField, UsageSample } from '@turnguard/core';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { codeLabel, ModelLabels, nameLabel } from './bounded-labels.js';
import { getProcessRegistry } from './process-metrics.js';

/** Seconds; from sub-millisecond TTFB on loopback to the 480 s turn limit (R4.7). */
const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/** Token types counted, by core's usage field; `totalTokens` is left out (it would count the others twice). */
const TOKEN_TYPES: ReadonlyArray<readonly [UsageField, string]> = [
  ['inputTokens', 'input'],
  ['outputTokens', 'output'],
  ['cachedInputTokens', 'cached_input'],
  ['cacheCreationInputTokens', 'cache_creation'],
  ['reasoningTokens', 'reasoning'],
];

/** A circuit breaker's state per upstream and model (R11.5). */
export type CircuitState = 'closed' | 'open' | 'half_open';
const CIRCUIT_STATES: readonly CircuitState[] = ['closed', 'open', 'half_open'];

/** How a mid-answer continuation ended (R11.6). */
export type ContinuationResult = 'completed' | 'failed';

export interface GatewayMetricsOptions {
  /** Distinct model labels besides the declared ones; later models are counted as `other` (decision 0380). Default 50. */
  maxModelLabels?: number;
}

/**
 * What `GET /metrics` exposes (R12.2), through prom-client: physical requests
 * next to logical turns (the same split as stats.json, R6), failures by error
 * code, tokens the upstream reported (an unknown count adds nothing, R5.1),
 * retries, recoveries, fallbacks, continuations, circuit state, turn latency
 * and time to first byte, plus the process metrics and `turnguard_build_info`.
 * Labels are protocols, bounded model names, outcomes and codes: never content.
 */
export class GatewayMetrics {
  /** This gateway's metrics and the process's, as one scrape. */
  readonly registry: Registry;
  readonly #own = new Registry();
  readonly #models: ModelLabels;

  readonly #physicalRequests = this.#counter('turnguard_physical_requests_total', 'HTTP requests sent upstream, by protocol, model and result (ok, failed).', ['protocol', 'model', 'result']);
  readonly #upstreamFailures = this.#counter('turnguard_upstream_failures_total', 'Failed upstream requests, by protocol, model and error code.', ['protocol', 'model', 'code']);
  readonly #withoutUsage = this.#counter('turnguard_requests_without_usage_total', 'Upstream requests whose upstream reported no usage: their tokens are unknown, not counted.', ['protocol', 'model']);
  readonly #tokens = this.#counter('turnguard_tokens_total', 'Tokens the upstream reported, by type (input, output, cached_input, cache_creation, reasoning); unknown counts add nothing.', ['protocol', 'model', 'type']);
  readonly #turns = this.#counter('turnguard_logical_turns_total', 'Logical turns, by protocol, model and outcome (ok, recovered, failed, aborted).', ['protocol', 'model', 'outcome']);
  readonly #turnFailures = this.#counter('turnguard_logical_turn_failures_total', 'Failed logical turns, by protocol, model and final error code.', ['protocol', 'model', 'code']);
  readonly #retries = this.#counter('turnguard_retries_total', 'R1 retries waited for, by protocol, model and the error code that caused them.', ['protocol', 'model', 'code']);
  readonly #recoveries = this.#counter('turnguard_recoveries_total', 'Recovery requests sent after a cut thinking stream (R4), by result (recovered, failed).', ['protocol', 'model', 'result']);
  readonly #fallbacks = this.#counter('turnguard_fallbacks_total', 'Turns moved to a fallback model (R11), by protocol, the model replaced, the model used and the reason.', ['protocol', 'from_model', 'to_model', 'reason']);
  readonly #continuations = this.#counter('turnguard_continuations_total', 'Mid-answer continuation requests (R11.6), by protocol, model and result (completed, failed).', ['protocol', 'model', 'result']);
  readonly #circuitState = new Gauge({
    name: 'turnguard_circuit_state',
    help: 'Circuit breaker state per upstream and model (R11.5): 1 for the current state, 0 for the others.',
    labelNames: ['upstream', 'model', 'state'] as const,
    registers: [this.#own],
  });
  /** Client requests the gateway refused before any upstream request, by code. */
  readonly rejected = this.#counter('turnguard_rejected_requests_total', 'Client requests refused by the gateway before any upstream request, by code.', ['code']);
  readonly #turnDuration = this.#histogram('turnguard_turn_duration_seconds', 'Logical turn duration, from segment 1 start to the final event.');
  readonly #timeToFirstByte = this.#histogram('turnguard_ttfb_seconds', 'From the client request arriving to the first response byte written to it.');

  constructor(options: GatewayMetricsOptions = {}) {
    this.#models = new ModelLabels(options.maxModelLabels);
    this.registry = Registry.merge([this.#own, getProcessRegistry()]);
  }

  /** The configured models: each keeps a label of its own, whatever the limit. */
  declareModels(models: Iterable<string>): void {
    this.#models.declare(models);
  }

  /** One physical request (R6.1): its result, its error code, its known tokens. */
  recordSample(sample: UsageSample): void {
    const model = this.#models.labelOf(sample.model);
    const { protocol } = sample;
    this.#physicalRequests.inc({ protocol, model, result: sample.ok ? 'ok' : 'failed' });
    if (!sample.ok) this.#upstreamFailures.inc({ protocol, model, code: codeLabel(sample.errorCode) });
    if (sample.noUsage) this.#withoutUsage.inc({ protocol, model });
    for (const [field, type] of TOKEN_TYPES) {
      const count = sample.usage[field];
      // R5.1: a count the upstream did not report is not 0; only reported counts are added.
      if (count !== undefined && Number.isFinite(count) && count >= 0) this.#tokens.inc({ protocol, model, type }, count);
    }
    // Counted where the recovery request really went out (an abort between segments sends none, R8.4).
    if (sample.recoveryAttempt) this.#recoveries.inc({ protocol, model, result: sample.recovered ? 'recovered' : 'failed' });
  }

  /** One logical turn (R6.2), counted as stats.json counts it: a recovered turn is `recovered`, not `ok`. */
  recordTurn(turn: TurnRecord): void {
    const model = this.#models.labelOf(turn.model);
    const { protocol } = turn;
    const outcome = turn.outcome === 'ok' && turn.recovered ? 'recovered' : turn.outcome;
    this.#turns.inc({ protocol, model, outcome });
    if (turn.outcome === 'failed') this.#turnFailures.inc({ protocol, model, code: codeLabel(turn.errorCode) });
    this.#turnDuration.observe({ protocol, model }, turn.durationMs / 1000);
  }

  /** One R1 retry, when it is decided (before its wait). */
  recordRetry(protocol: Protocol, model: string | undefined, code: string): void {
    this.#retries.inc({ protocol, model: this.#models.labelOf(model), code: codeLabel(code) });
  }

  recordTimeToFirstByte(protocol: Protocol, model: string | undefined, seconds: number): void {
    if (Number.isFinite(seconds) && seconds >= 0) this.#timeToFirstByte.observe({ protocol, model: this.#models.labelOf(model) }, seconds);
  }

  /** A turn moved from one model to another (R11.7); `reason` is an error code or a short name such as `circuit-open`, as the chain names it. */
  recordFallback(protocol: Protocol, fromModel: string, toModel: string, reason: string): void {
    const reasonLabel = /^[A-Z]/.test(reason) ? codeLabel(reason) : nameLabel(reason);
    this.#fallbacks.inc({ protocol, from_model: this.#models.labelOf(fromModel), to_model: this.#models.labelOf(toModel), reason: reasonLabel });
  }

  /** A mid-answer continuation request was sent (R11.6), and how it ended. */
  recordContinuation(protocol: Protocol, model: string, result: ContinuationResult): void {
    this.#continuations.inc({ protocol, model: this.#models.labelOf(model), result });
  }

  /** The circuit breaker of `upstream` (a configured upstream's name) and `model` is now `state` (R11.5). */
  setCircuitState(upstream: string, model: string, state: CircuitState): void {
    const labels = { upstream: nameLabel(upstream), model: this.#models.labelOf(model) };
    for (const each of CIRCUIT_STATES) this.#circuitState.set({ ...labels, state: each }, each === state ? 1 : 0);
  }

  /** The Prometheus text exposition of every metric (the gateway's and the process's). */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  #counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.#own] });
  }

  #histogram(name: string, help: string): Histogram<'protocol' | 'model'> {
    return new Histogram({ name, help, labelNames: ['protocol', 'model'] as const, buckets: LATENCY_BUCKETS, registers: [this.#own] });
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
