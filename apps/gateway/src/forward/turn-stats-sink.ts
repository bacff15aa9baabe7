import type { StatsSink, TurnRecord, UsageSample } from '@turnguard/core';
import type { StoredSample } from '@turnguard/stats';

/** The sample warning for records the relay dropped after the protocol's proper end (R8.13; a code, never content, R4.10). */
export const RELAY_DROPPED_AFTER_END = 'relay_dropped_after_end';

/** What the gateway's transport tells of the turn's latest physical request. */
export interface LatestRequest {
  /** Its response head came back (the fetch resolved with a response). */
  readonly latestGotHead: boolean;
}

/**
 * One turn's stats sink: the gateway's sink, with what only the gateway
 * knows added to each physical sample (R6.1). A new object: a recorded
 * sample never changes (R4.11).
 *
 * - `noResponseHead`: runTurn's requests are sequential and each sample is
 *   recorded when its attempt is judged, before the next request goes out,
 *   so the sample is the latest request's. One that ended before its
 *   response head (a reset connection, an abort in flight) is still a
 *   physical request, but the upstream may have parsed its head late or
 *   never: the sample says so, and the upstream's request log can count one
 *   fewer.
 * - `relay_dropped_after_end`: the relay hears a body's records while runTurn
 *   reads it, and runTurn records that request's sample when the body ends,
 *   so the warning goes into the next sample recorded.
 */
export class TurnStatsSink implements StatsSink {
  readonly #sink: StatsSink;
  readonly #requests: LatestRequest;
  #droppedAfterEnd = 0;
  #unrecorded = false;

  constructor(sink: StatsSink, requests: LatestRequest) {
    this.#sink = sink;
    this.#requests = requests;
  }

  /** Records dropped after the protocol's proper end, over the whole turn (for the log line). */
  get droppedAfterEnd(): number {
    return this.#droppedAfterEnd;
  }

  noteDroppedAfterEnd(): void {
    this.#droppedAfterEnd += 1;
    this.#unrecorded = true;
  }

  recordUsage(sample: UsageSample): void | Promise<void> {
    const noResponseHead = !this.#requests.latestGotHead;
    if (!noResponseHead && !this.#unrecorded) return this.#sink.recordUsage(sample);
    const noted: StoredSample = { ...sample };
    if (noResponseHead) noted.noResponseHead = true;
    if (this.#unrecorded) noted.warnings = Object.freeze([...sample.warnings, RELAY_DROPPED_AFTER_END]);
    this.#unrecorded = false;
    return this.#sink.recordUsage(noted);
  }

  recordTurn(turn: TurnRecord): void | Promise<void> {
    return this.#sink.recordTurn(turn);
  }
}
