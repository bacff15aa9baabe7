import type { ProtocolAdapter } from '../adapter/protocol-adapter.js';
import { createAbortedError } from '../errors/create-aborted-error.js';
import type { TurnError } from '../errors/turn-error.js';
import type { TurnEvent } from '../types/turn-event.js';
import { EventChannel } from './event-channel.js';
import type { SegmentTimeLimit } from './segment-deadline.js';
import { createTimeLimitError } from './segment-deadline.js';
import type { StopSource } from './race-abort.js';
import type { StatsSink, TurnRecord, UsageSample } from './stats-sink.js';
import type { SegmentRecord } from './turn-result.js';

export type StopCause =
  | { by: 'host-signal'; reason: unknown }
  | { by: 'consumer' }
  | { by: 'time-limit'; segmentIndex: 0 | 1; limit: SegmentTimeLimit };

/**
 * Per-turn mutable state shared by the engine's steps: why the turn was
 * stopped (first cause wins), the warnings (collected once per turn,
 * R4.11), metadata shown once, and the stats sink guarded so it runs once
 * per physical request and once per turn (R6.1, R6.2).
 */
export class TurnState implements StopSource {
  /** Keeps this class's hidden class alive across a full GC between turns (see SegmentReader.shapeAnchor). */
  static readonly shapeAnchor = new TurnState(EventChannel.shapeAnchor, undefined);
  readonly controller = new AbortController();
  /**
   * The segment requests' abort races: called by `stop` itself, no EventTarget listener (decision 0212).
   * One slot: a turn's requests run one at a time, so a Set (a 120-byte table, held by every open turn,
   * issue 19) is made only for a second listener at once.
   */
  private stopListener: (() => void) | undefined;
  private moreStopListeners: Set<() => void> | undefined;
  readonly segments: SegmentRecord[] = [];
  private stopCause: StopCause | undefined;
  /** Made with the first warning: most turns have none, and an empty Set is a 120-byte table per open turn (issue 19). */
  private warningSet: Set<string> | undefined;
  private metadataShown = false;
  private turnRecorded = false;

  constructor(readonly channel: EventChannel, private readonly stats: StatsSink | undefined) {}

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get stopped(): StopCause | undefined {
    return this.stopCause;
  }

  stop(cause: StopCause): void {
    if (this.stopCause !== undefined) return;
    this.stopCause = cause;
    // The signal first: the fetch's own listener destroys the request before the races settle, as before.
    this.controller.abort(cause.by === 'host-signal' ? cause.reason : cause.by);
    const first = this.stopListener;
    // A copy: a listener may unsubscribe another one, which must still be called.
    const more = this.moreStopListeners === undefined ? [] : [...this.moreStopListeners];
    this.stopListener = undefined;
    this.moreStopListeners = undefined;
    first?.();
    for (const listener of more) listener();
  }

  onStop(listener: () => void): void {
    if (this.stopCause !== undefined) listener();
    else if (this.stopListener === undefined) this.stopListener = listener;
    else (this.moreStopListeners ??= new Set()).add(listener);
  }

  offStop(listener: () => void): void {
    if (this.stopListener === listener) this.stopListener = undefined;
    else this.moreStopListeners?.delete(listener);
  }

  /** The error that stands for the stop: ABORTED for host/consumer, the named time limit otherwise (R4.9). */
  stopError(): TurnError | undefined {
    const cause = this.stopCause;
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

  get warnings(): readonly string[] {
    return this.warningSet === undefined ? [] : [...this.warningSet];
  }

  /** A warning is shown and kept once per logical turn, however often it is reported (R4.11). */
  addWarning(message: string): void {
    const warnings = (this.warningSet ??= new Set());
    if (warnings.has(message)) return;
    warnings.add(message);
    this.channel.post({ type: 'warning', message });
  }

  /** Only the first segment's response metadata is shown: one logical response. */
  noteMetadata(event: Extract<TurnEvent, { type: 'response-metadata' }>): void {
    if (this.metadataShown) return;
    this.metadataShown = true;
    this.channel.post(event);
  }

  // Samples and the turn record are built only for a sink: most library turns have none, and
  // building them ran cache-cold at the end of every turn (issue 19, decision 0296).

  recordUsage(buildSample: () => UsageSample): void {
    const { stats } = this;
    if (stats === undefined) return;
    const sample = buildSample();
    callSafely(() => stats.recordUsage(sample));
  }

  recordTurn(buildRecord: () => TurnRecord): void {
    if (this.turnRecorded) return;
    this.turnRecorded = true;
    const { stats } = this;
    if (stats === undefined) return;
    const record = buildRecord();
    callSafely(() => stats.recordTurn(record));
  }
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

export function readModel<Native extends object>(adapter: ProtocolAdapter<Native>, request: Native): string {
  try {
    return adapter.getModel(request);
  } catch {
    return 'unknown';
  }
}
