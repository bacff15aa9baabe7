import { rejectOption as rejectInvalidOption } from '../internal/reject-option.js';

/**
 * R11.5: one circuit per upstream and model, in this process. A fleet's
 * replicas each keep their own, as Envoy's outlier detection does per Envoy
 * (decision 0405). Hand-written rather than cockatiel's CircuitBreakerPolicy:
 * cockatiel makes callers that arrive during the half-open probe wait for its
 * result (`await state.test`) instead of sending them to the fallback, and a
 * probe here is a whole LLM stream that may run for minutes.
 */
export type CircuitState = 'closed' | 'open' | 'half-open';

export interface CircuitKey {
  /** The configured upstream's name. */
  upstream: string;
  model: string;
}

export interface CircuitStateChange {
  key: CircuitKey;
  from: CircuitState;
  to: CircuitState;
  /** Epoch ms of the change. */
  at: number;
  /** Consecutive counted failures that led here (0 when closing). */
  consecutiveFailures: number;
  /** How long the circuit now stays open before a probe; only for `to: 'open'`. */
  coolDownMs?: number;
}

export interface CircuitBreakerOptions {
  /** Consecutive failures that open a closed circuit (default 5, as Envoy's `consecutive_5xx`). */
  failureThreshold?: number;
  /** Cool-down before the first probe (default 30 s, as Envoy's `base_ejection_time`). */
  coolDownMs?: number;
  /** A failed probe doubles the cool-down up to this (default 5 min, as Envoy's `max_ejection_time`). */
  maxCoolDownMs?: number;
  now?: () => number;
  /** Told of every state change (metrics, the access log). A listener that throws is ignored. */
  onStateChange?: (change: CircuitStateChange) => void;
}

export const CIRCUIT_BREAKER_DEFAULTS = { failureThreshold: 5, coolDownMs: 30_000, maxCoolDownMs: 300_000 } as const;

/** Permission to send one request; report its outcome exactly once (later reports are ignored). */
export interface CircuitPermit {
  /** This request is the one probe of a half-open circuit. */
  readonly probe: boolean;
  /** The upstream answered well: closes a half-open circuit, resets the failure count. */
  succeed(): void;
  /** The upstream failed in a way that counts against it (see `countsAgainstCircuit`). */
  fail(): void;
  /** The request ended without a verdict on the upstream (abort, a bad request): a probe slot is given back. */
  release(): void;
}

export type CircuitAdmission = { admitted: true; permit: CircuitPermit } | { admitted: false; state: CircuitState; retryAt: number };

interface Circuit {
  state: CircuitState;
  consecutiveFailures: number;
  openedAt: number;
  coolDownMs: number;
  /** Times opened in a row without a successful probe (the cool-down grows with it). */
  opens: number;
  probeInFlight: boolean;
}

function readPositiveInteger(value: number | undefined, fallback: number, option: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    rejectInvalidOption('INVALID_CIRCUIT_BREAKER_OPTION', `circuitBreaker.${option} must be a positive integer, got ${JSON.stringify(value)}.`, option);
  }
  return value;
}

function keyOf(key: CircuitKey): string {
  return `${key.upstream}\u0000${key.model}`;
}

/** Every circuit of one process, created on first use. */
export class CircuitBreakers {
  readonly #circuits = new Map<string, { key: CircuitKey; circuit: Circuit }>();
  readonly #failureThreshold: number;
  readonly #coolDownMs: number;
  readonly #maxCoolDownMs: number;
  readonly #now: () => number;
  readonly #onStateChange: ((change: CircuitStateChange) => void) | undefined;

  constructor(options: CircuitBreakerOptions = {}) {
    this.#failureThreshold = readPositiveInteger(options.failureThreshold, CIRCUIT_BREAKER_DEFAULTS.failureThreshold, 'failureThreshold');
    this.#coolDownMs = readPositiveInteger(options.coolDownMs, CIRCUIT_BREAKER_DEFAULTS.coolDownMs, 'coolDownMs');
    this.#maxCoolDownMs = Math.max(this.#coolDownMs, readPositiveInteger(options.maxCoolDownMs, CIRCUIT_BREAKER_DEFAULTS.maxCoolDownMs, 'maxCoolDownMs'));
    this.#now = options.now ?? Date.now;
    this.#onStateChange = options.onStateChange;
  }

  /**
   * Asks to send a request to `key`. Closed: admitted. Open: refused until
   * the cool-down has passed, then the first caller becomes the one probe
   * (half-open); every other caller is refused at once — it goes to the
   * fallback, it never waits for the probe.
   */
  admit(key: CircuitKey): CircuitAdmission {
    const entry = this.#entry(key);
    const circuit = entry.circuit;
    const now = this.#now();
    if (circuit.state === 'closed') return { admitted: true, permit: this.#permit(entry, false) };
    if (circuit.state === 'open' && now - circuit.openedAt >= circuit.coolDownMs) {
      this.#change(entry, 'half-open', now);
    }
    if (circuit.state === 'half-open' && !circuit.probeInFlight) {
      circuit.probeInFlight = true;
      return { admitted: true, permit: this.#permit(entry, true) };
    }
    return { admitted: false, state: circuit.state, retryAt: circuit.openedAt + circuit.coolDownMs };
  }

  /** The state as a probe would find it now, without taking a slot. */
  stateOf(key: CircuitKey): CircuitState {
    return this.#circuits.get(keyOf(key))?.circuit.state ?? 'closed';
  }

  /** Every circuit seen so far, for `/metrics`. */
  snapshot(): Array<{ key: CircuitKey; state: CircuitState; consecutiveFailures: number }> {
    return [...this.#circuits.values()].map(({ key, circuit }) => ({ key, state: circuit.state, consecutiveFailures: circuit.consecutiveFailures }));
  }

  #entry(key: CircuitKey): { key: CircuitKey; circuit: Circuit } {
    const id = keyOf(key);
    let entry = this.#circuits.get(id);
    if (entry === undefined) {
      entry = {
        key: { upstream: key.upstream, model: key.model },
        circuit: { state: 'closed', consecutiveFailures: 0, openedAt: 0, coolDownMs: this.#coolDownMs, opens: 0, probeInFlight: false },
      };
      this.#circuits.set(id, entry);
    }
    return entry;
  }

  #permit(entry: { key: CircuitKey; circuit: Circuit }, probe: boolean): CircuitPermit {
    let reported = false;
    const once = (outcome: () => void) => () => {
      if (reported) return;
      reported = true;
      outcome();
    };
    return {
      probe,
      succeed: once(() => this.#succeed(entry, probe)),
      fail: once(() => this.#fail(entry, probe)),
      release: once(() => {
        // No verdict: the circuit stays half-open and the next caller becomes the probe.
        if (probe && entry.circuit.state === 'half-open') entry.circuit.probeInFlight = false;
      }),
    };
  }

  #succeed(entry: { key: CircuitKey; circuit: Circuit }, probe: boolean): void {
    const circuit = entry.circuit;
    if (probe && circuit.state === 'half-open') {
      circuit.probeInFlight = false;
      circuit.consecutiveFailures = 0;
      circuit.opens = 0;
      circuit.coolDownMs = this.#coolDownMs;
      this.#change(entry, 'closed', this.#now());
      return;
    }
    // A request admitted before the circuit opened says nothing about it now.
    if (circuit.state === 'closed') circuit.consecutiveFailures = 0;
  }

  #fail(entry: { key: CircuitKey; circuit: Circuit }, probe: boolean): void {
    const circuit = entry.circuit;
    if (probe && circuit.state === 'half-open') {
      circuit.probeInFlight = false;
      circuit.consecutiveFailures += 1;
      this.#open(entry);
      return;
    }
    if (circuit.state !== 'closed') return;
    circuit.consecutiveFailures += 1;
    if (circuit.consecutiveFailures >= this.#failureThreshold) this.#open(entry);
  }

  #open(entry: { key: CircuitKey; circuit: Circuit }): void {
    const circuit = entry.circuit;
    circuit.opens += 1;
    circuit.coolDownMs = Math.min(this.#maxCoolDownMs, this.#coolDownMs * 2 ** (circuit.opens - 1));
    circuit.openedAt = this.#now();
    this.#change(entry, 'open', circuit.openedAt);
  }

  #change(entry: { key: CircuitKey; circuit: Circuit }, to: CircuitState, at: number): void {
    const from = entry.circuit.state;
    entry.circuit.state = to;
    if (from === to) return;
    const change: CircuitStateChange = {
      key: entry.key,
      from,
      to,
      at,
      consecutiveFailures: entry.circuit.consecutiveFailures,
      ...(to === 'open' ? { coolDownMs: entry.circuit.coolDownMs } : {}),
    };
    try {
      this.#onStateChange?.(change);
    } catch {
      // A metrics or log listener must never break routing.
    }
  }
}
