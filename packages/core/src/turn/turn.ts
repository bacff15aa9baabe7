import type { ProtocolAdapter, UpstreamTarget } from '../adapter/protocol-adapter.js';
import { createAbortedError } from '../errors/create-aborted-error.js';
import type { TurnError } from '../errors/turn-error.js';
import type { RetryOptions } from '../retry/index.js';
import type { MetadataEvent } from '../stream/segment-facts.js';
import type { SegmentNotices } from '../stream/segment-recorder.js';
import { TurnEventStream } from '../stream/turn-event-stream.js';
import type { StreamRecoveryConfig } from './recovery-config.js';
import { createTimeLimitError, pickSegmentTimeLimit, type SegmentTimeLimit } from './segment-deadline.js';
import type { FetchFunction } from './send-request.js';
import type { StatsSink, TurnRecord, UsageSample } from './stats-sink.js';
import type { SegmentRecord, TurnResult } from './turn-result.js';
import type { RunTurnOptions } from './run-turn.js';
import { executeTurn } from './execute-turn.js';
import type { TurnChain } from './failover-options.js';
import type { ChainRun } from './chain-run.js';
import type { AttemptWatch } from './attempt-watch.js';

/** runTurn's options with every default filled in. */
export interface TurnOptions<Native extends object> {
  adapter: ProtocolAdapter<Native>;
  request: Native;
  target: UpstreamTarget;
  fetch: FetchFunction;
  retry: RetryOptions;
  recovery: StreamRecoveryConfig;
  signal: AbortSignal | undefined;
  stats: StatsSink | undefined;
  now: () => number;
  createId: () => string;
  requestIdHeader: string;
  inputWarnings: readonly string[];
  observeSseRecords: RunTurnOptions<Native>['observeSseRecords'];
  telemetry: RunTurnOptions<Native>['telemetry'];
  /** R11: the fail-over chain; undefined runs segment 1 under R1's own loop. */
  chain: TurnChain | undefined;
}

export type StopCause =
  | { by: 'host-signal'; reason: unknown }
  | { by: 'consumer' }
  | { by: 'time-limit'; segmentIndex: 0 | 1; limit: SegmentTimeLimit };

/**
 * One logical turn: its options, the host's event stream, and what the
 * turn's steps share while it runs — why it was stopped (the first cause
 * wins), its warnings (shown and kept once, R4.11), the records of its
 * physical requests, and the stats sink, called once per physical request
 * and once per turn (R6.1, R6.2). The steps themselves are the async
 * functions of execute-turn.ts and run-attempt.ts.
 */
export class Turn<Native extends object> implements SegmentNotices {
  readonly events: TurnEventStream;
  readonly options: TurnOptions<Native>;
  /** R1.7: credentials a refresh hook returns are sent from the next request on. */
  target: UpstreamTarget;
  readonly model: string;
  readonly segments: SegmentRecord[] = [];
  /** Set by `begin`, on the host's first pull. */
  startedAt = 0;
  /** R11: what a fail-over chain did, for the turn's end; undefined without a chain. */
  chainRun: ChainRun | undefined;
  /** R11.4: the time limits of the chain's request in flight, stopped with the turn. */
  activeWatch: AttemptWatch | undefined;
  /** R4.7: the whole-turn limit runs from the turn's start; `streamRecovery: false` → no client-side limit (R4.8). */
  deadlineAt: number | undefined;
  readonly #controller = new AbortController();
  #stopCause: StopCause | undefined;
  #warnings: Set<string> | undefined;
  #metadataShown = false;
  #turnRecorded = false;
  #limitTimer: ReturnType<typeof setTimeout> | undefined;
  /** The host may abort through `signal` or through `retry.signal`: both stop the whole turn (R1.6). */
  readonly #hostSignals: AbortSignal[];
  readonly #onHostAbort = (event: Event): void => this.stop({ by: 'host-signal', reason: (event.target as AbortSignal).reason });
  /** Resolves once the turn has ended and recorded itself (never rejects). */
  readonly result: Promise<TurnResult>;
  #resolveResult!: (result: TurnResult) => void;
  /** runTurn's `requestBytes` until the first request is sent (decision 0322). */
  #requestBytes: Uint8Array | undefined;

  constructor(options: TurnOptions<Native>, requestBytes?: Uint8Array) {
    this.options = options;
    this.target = options.target;
    this.#requestBytes = requestBytes;
    this.model = readModel(options.adapter, options.request);
    this.#hostSignals = [options.signal, options.retry.signal].filter((signal): signal is AbortSignal => signal !== undefined);
    this.result = new Promise<TurnResult>((resolve) => {
      this.#resolveResult = resolve;
    });
    // The turn starts on the host's first pull (or when `result` is awaited).
    this.events = new TurnEventStream({ start: () => executeTurn(this), stopByConsumer: () => this.stop({ by: 'consumer' }) });
  }

  /**
   * The host's bytes for the request about to be sent, when that request is
   * the host's own unchanged (`streaming` is `options.request` itself: every
   * edit makes a new object). Asked once, by the turn's first request; a
   * later request serializes its own (R8.2, decision 0322).
   */
  takeRequestBytes(streaming: object): Uint8Array | undefined {
    const bytes = this.#requestBytes;
    this.#requestBytes = undefined;
    return streaming === this.options.request ? bytes : undefined;
  }

  /** The turn has ended and is recorded: its result settles, then the host's iteration ends (R6.2). */
  settle(result: TurnResult): void {
    this.#resolveResult(result);
    this.events.end();
  }

  /**
   * Aborts with the stop: the signal every request of the turn is sent with and every wait races (R1.6).
   * Made on first read (Node makes an AbortController's signal then): a chain's requests carry their
   * attempt's own signal (R11.4), so a fault-free chain turn never makes this one.
   */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The stop's reason, as the signal carries it; undefined while the turn runs. */
  get stopReason(): { reason: unknown } | undefined {
    const cause = this.#stopCause;
    return cause === undefined ? undefined : { reason: reasonOf(cause) };
  }

  get stopped(): StopCause | undefined {
    return this.#stopCause;
  }

  /** The turn starts: its clock and limit, the warnings gathered while the request was built, the host's signals. */
  begin(): void {
    this.startedAt = this.options.now();
    const { recovery } = this.options;
    this.deadlineAt = recovery.enabled ? this.startedAt + recovery.turnTimeoutMs : undefined;
    for (const warning of this.options.inputWarnings) this.addWarning(warning);
    for (const signal of this.#hostSignals) {
      if (signal.aborted) this.stop({ by: 'host-signal', reason: signal.reason });
      else signal.addEventListener('abort', this.#onHostAbort, { once: true });
    }
  }

  stop(cause: StopCause): void {
    if (this.#stopCause !== undefined) return;
    this.#stopCause = cause;
    const reason = reasonOf(cause);
    this.#controller.abort(reason);
    // A chain's attempt runs under its own signal (R11.4): the turn's stop reaches it here, with no listener per attempt.
    this.activeWatch?.abortWithTurn(reason);
  }

  /** The error that stands for the stop: ABORTED for host/consumer, the named time limit otherwise (R4.9). */
  stopError(): TurnError | undefined {
    const cause = this.#stopCause;
    if (cause === undefined) return undefined;
    switch (cause.by) {
      case 'host-signal':
        return createAbortedError(cause.reason);
      case 'consumer':
        return createAbortedError('consumer-stopped');
      case 'time-limit':
        return createTimeLimitError(cause.segmentIndex, cause.limit);
      default: {
        const _exhaustive: never = cause;
        return _exhaustive;
      }
    }
  }

  /** R4.7: segment 1 runs under the turn limit, the recovery under its own (never past the turn's). */
  armSegmentLimit(segmentIndex: 0 | 1): void {
    clearTimeout(this.#limitTimer);
    const { recovery, now } = this.options;
    if (!recovery.enabled || this.deadlineAt === undefined) return;
    const limit = pickSegmentTimeLimit(segmentIndex, now(), this.deadlineAt, recovery.turnTimeoutMs, recovery.recoverySegmentTimeoutMs);
    this.#limitTimer = setTimeout(() => this.stop({ by: 'time-limit', segmentIndex, limit }), Math.max(0, limit.firesAt - now()));
  }

  /** The turn is ending: no limit fires and no host signal stops it any more (`begin`'s listeners go). */
  dispose(): void {
    clearTimeout(this.#limitTimer);
    for (const signal of this.#hostSignals) signal.removeEventListener('abort', this.#onHostAbort);
  }

  get warnings(): readonly string[] {
    return this.#warnings === undefined ? [] : [...this.#warnings];
  }

  /** A warning is shown and kept once per logical turn, however often it is reported (R4.11). */
  addWarning(message: string): void {
    const warnings = (this.#warnings ??= new Set());
    if (warnings.has(message)) return;
    warnings.add(message);
    this.events.post({ type: 'warning', message });
  }

  /** Only the first segment's response metadata is shown: one logical response. */
  noteMetadata(event: MetadataEvent): void {
    if (this.#metadataShown) return;
    this.#metadataShown = true;
    this.events.post(event);
  }

  // Samples and the turn record are built only for a sink: most library turns have none.

  recordUsage(buildSample: () => UsageSample): void {
    const { stats } = this.options;
    if (stats === undefined) return;
    const sample = buildSample();
    callSafely(() => stats.recordUsage(sample));
  }

  recordTurn(buildRecord: () => TurnRecord): void {
    if (this.#turnRecorded) return;
    this.#turnRecorded = true;
    const { stats } = this.options;
    if (stats === undefined) return;
    const record = buildRecord();
    callSafely(() => stats.recordTurn(record));
  }
}

function reasonOf(cause: StopCause): unknown {
  return cause.by === 'host-signal' ? cause.reason : cause.by;
}

/** A stats sink must never break a turn. */
function callSafely(call: () => void | Promise<void> | undefined): void {
  try {
    const pending = call();
    if (pending !== undefined) pending.catch(() => undefined);
  } catch {
    /* ignored on purpose: stats are best effort */
  }
}

function readModel<Native extends object>(adapter: ProtocolAdapter<Native>, request: Native): string {
  try {
    return adapter.getModel(request);
  } catch {
    return 'unknown';
  }
}
