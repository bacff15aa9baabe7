import type { Protocol, ProtocolAdapter, UpstreamTarget } from '../adapter/protocol-adapter.js';
import type { CircuitBreakers } from '../failover/circuit-breaker.js';
import type { ContinuationMode } from '../failover/decide-failover.js';
import type { RetryBudget } from '../failover/retry-budget.js';
import type { UpstreamTimeLimitOptions } from '../failover/upstream-time-limits.js';
import { resolveTurnChain, type FailoverTarget, type PrefillDialect, type TurnChain } from './failover-options.js';
import type { RetryOptions } from '../retry/index.js';
import type { SseRecordObserver } from '../stream/decode-sse-stream.js';
import type { DecodedStreamEvent } from '../types/turn-event.js';
import { withTargetSecrets } from '../retry/debug-dump.js';
import { LazyResultPromise } from '../internal/lazy-result-promise.js';
import { resolveStreamRecoveryConfig, type StreamRecoveryConfig, type StreamRecoveryOptions } from './recovery-config.js';
import type { FetchFunction } from './send-request.js';
import type { StatsSink } from './stats-sink.js';
import { Turn, type TurnOptions } from './turn.js';
import type { TurnRun } from './turn-result.js';
import type { TurnTelemetryOptions } from '../telemetry/turn-telemetry-options.js';
import { createRandomId } from '../internal/random-id.js';
import { rejectOption as rejectInvalidOption } from '../internal/reject-option.js';

export const DEFAULT_REQUEST_ID_HEADER = 'x-request-id';

export interface RunTurnOptions<Native extends object> {
  adapter: ProtocolAdapter<Native>;
  /** The native request as the host built it; streaming is forced on. */
  request: Native;
  /**
   * The bytes `request` was parsed from (a gateway's client body). The
   * turn's first request sends them as they are when it goes out unchanged
   * — the host's own request to its own target, already streaming — instead
   * of serializing `request` again (R8.2); any changed request (another
   * model, a fallback, a recovery, a retry) is serialized as usual. Dropped
   * once the first request is sent: a stream does not hold its prompt twice.
   */
  requestBytes?: Uint8Array;
  target: UpstreamTarget;
  /** Injectable transport; defaults to the global `fetch` (which msw intercepts in tests). */
  fetch?: FetchFunction;
  /** R1 options for segment 1; `signal`, `onRetry` and `onHeartbeat` are chained, not replaced. */
  retry?: RetryOptions;
  /** R4.8: `false` turns recovery and every client-side time limit off; an object may lower limits. */
  streamRecovery?: false | StreamRecoveryOptions;
  signal?: AbortSignal;
  stats?: StatsSink;
  now?: () => number;
  createId?: () => string;
  /** R4.6: the header carrying a fresh id per physical request; session headers are left alone. */
  requestIdHeader?: string;
  /** R4.11: warnings about dropped input gathered while the request was built; shown and stored once. */
  warnings?: readonly string[];
  /**
   * Asked once for every successful upstream response before its body is
   * read: an observer returned here sees each SSE record of that body, with
   * its raw text and the events decoded from it (the gateway relays those
   * records, R8.13). Undefined: the body is decoded without keeping raw text.
   */
  observeSseRecords?: (body: ResponseBodyInfo) => SseRecordObserver<DecodedStreamEvent> | undefined;
  /** R12.1: the finished turn's spans and metrics (`@opentelemetry/api`'s globals by default); `false`: none. */
  telemetry?: TurnTelemetryOptions | false;
  /**
   * R11.1: the targets tried after this one, in order, each with its own
   * adapter (maybe another protocol family: the request then goes through
   * the neutral form, and a request another family cannot answer faithfully
   * skips that target), target and model. Giving any fail-over option runs
   * segment 1 as a chain under `retryBudget`; without them, R1's own loop.
   */
  fallbacks?: readonly FailoverTarget[];
  /**
   * `target`'s own adapter when it speaks another protocol family than
   * `request` (R11.1): the request is sent through the neutral form, as a
   * cross-family fallback's is, and read back as neutral events.
   */
  targetAdapter?: ProtocolAdapter<object>;
  /** This target's name (circuit key and records, R11.5, R11.7); default: the host of `target.baseUrl`. */
  upstream?: string;
  /** How this target takes a continuation's prefill (R11.6); absent: it is never sent one. */
  prefill?: PrefillDialect;
  /** R11.4: per-request time limits, each off unless given (R4.7's whole-turn limit still spans the chain). */
  timeLimits?: UpstreamTimeLimitOptions;
  /** R11.3: default R1.4's (`LIBRARY_RETRY_BUDGET`) with this call's `retry` numbers; the gateway passes `INTERACTIVE_RETRY_BUDGET`. */
  retryBudget?: RetryBudget;
  /** R11.6, opt-in: one continuation request after an answer was cut, stalled or broken mid-text. Default `off`. */
  continuation?: ContinuationMode;
  /** R11.5: the process's circuits; a target whose circuit is open is skipped (all open: the first is tried anyway). */
  circuitBreakers?: CircuitBreakers;
  /**
   * The host holds every event until the turn ends and shows its user only
   * the final answer (the gateway's JSON answer, R8.1): nothing it collected
   * has been seen. Then a cut, stall, malformed record or error after output
   * in segment 1 is judged as before output (R11.2: retried within the
   * budget, a cut failed over at once when a fallback exists) instead of
   * ending the turn (R4's rule). Before the new attempt the host gets one
   * `tombstone` (its `messageId` is the dropped request's id): drop all it
   * collected. A dropped attempt stays one stats sample (R6.1); its usage is
   * never the answer's (R5). Runs segment 1 as a chain. Default `false`: a
   * host that streams to its user must never set it (decision 0430).
   */
  outputHeldUntilEnd?: boolean;
}

/** What kind of body an SSE record observer is asked for. */
export type BodyKind = 'attempt' | 'recovery' | 'continuation';

/** Which response body an SSE record observer is asked for. */
export interface ResponseBodyInfo {
  /** 0: segment 1 (any of its attempts, on any target of the chain); 1: the recovery (R4) or continuation (R11.6) segment. */
  segmentIndex: 0 | 1;
  /** The physical request's own id (R4.6). */
  requestId: string;
  // runTurn sets each field below; they are optional so an observer can be driven by hand (tests).
  /** Segment 1's, a recovery's (R4) or a continuation's (R11.6). */
  kind?: BodyKind;
  /** The protocol family the body speaks: another than the host's after a cross-family fail-over (R11.1). */
  protocol?: Protocol;
  /** The model the request asked for. */
  model?: string;
  /** The chain entry's upstream name, in a chain (R11.1). */
  upstream?: string;
}

function rejectOption(message: string, option: string): never {
  return rejectInvalidOption('INVALID_RUN_TURN_OPTION', message, option);
}

const ADAPTER_METHODS = [
  'parseRequest',
  'appendMessages',
  'withToolsDisabled',
  'withMaxOutputTokens',
  'getMaxOutputTokens',
  'getModel',
  'withStreaming',
  'buildHttpRequest',
  'decodeStream',
  'classifyError',
] as const;

function validateOptions<Native extends object>(options: RunTurnOptions<Native>): void {
  if (typeof options !== 'object' || options === null) rejectOption('runTurn needs an options object.', 'options');
  const adapter = options.adapter as unknown as Record<string, unknown> | undefined;
  if (typeof adapter !== 'object' || adapter === null) rejectOption('runTurn needs an adapter.', 'adapter');
  for (const method of ADAPTER_METHODS) {
    if (typeof adapter[method] !== 'function') rejectOption(`The adapter lacks ${method}().`, 'adapter');
  }
  if (typeof options.request !== 'object' || options.request === null)
    rejectOption('runTurn needs a native request object.', 'request');
  if (options.requestBytes !== undefined && !(options.requestBytes instanceof Uint8Array))
    rejectOption('requestBytes must be a Uint8Array.', 'requestBytes');
  if (typeof options.target?.baseUrl !== 'string' || options.target.baseUrl === '') {
    rejectOption('runTurn needs target.baseUrl.', 'target');
  }
  if (options.fetch !== undefined && typeof options.fetch !== 'function')
    rejectOption('fetch must be a function.', 'fetch');
  if (options.fetch === undefined && typeof globalThis.fetch !== 'function')
    rejectOption('No fetch is available.', 'fetch');
}

/**
 * One logical turn over the wire (R1, R4, R5). Returns at once; the turn
 * starts when the host pulls the first event (or awaits `result`). Bad
 * options throw a `TurnError` here, at call time (R4.8).
 */
export function runTurn<Native extends object>(options: RunTurnOptions<Native>): TurnRun {
  validateOptions(options);
  // Bad recovery limits throw here, at call time (R4.8).
  const recovery = resolveStreamRecoveryConfig(options.streamRecovery);
  // Bad fail-over options throw here too (R11).
  const chain = resolveTurnChain(options);
  const turn = new Turn(withDefaults(options, recovery, chain), options.requestBytes);
  let iterating = false;
  return {
    // Awaited with no iterator taken: the events are drained so the turn still runs to its end (and is recorded).
    result: new LazyResultPromise(turn.result, {
      ensureRunning: () => {
        if (iterating) return;
        iterating = true;
        void drain(turn.events);
      },
    }),
    [Symbol.asyncIterator]: () => {
      iterating = true;
      return turn.events;
    },
  };
}

function withDefaults<Native extends object>(options: RunTurnOptions<Native>, recovery: StreamRecoveryConfig, chain: TurnChain | undefined): TurnOptions<Native> {
  return {
    adapter: options.adapter,
    request: options.request,
    target: options.target,
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    retry: withTargetSecrets(options.retry ?? {}, options.target),
    recovery,
    signal: options.signal,
    stats: options.stats,
    now: options.now ?? Date.now,
    createId: options.createId ?? createRandomId,
    requestIdHeader: options.requestIdHeader ?? DEFAULT_REQUEST_ID_HEADER,
    inputWarnings: options.warnings ?? [],
    observeSseRecords: options.observeSseRecords,
    telemetry: options.telemetry,
    chain,
  };
}

async function drain(events: AsyncIterable<unknown>): Promise<void> {
  for await (const _event of events) {
    // Nobody is watching the events; the turn still runs to its end.
  }
}
