import type { StatsSink, TurnRecord, UsageSample } from '@turnguard/core';

/** The sample warning for records the relay dropped after the protocol's proper end (R8.13; a code, never content, R4.10). */
export const RELAY_DROPPED_AFTER_END = 'relay_dropped_after_end';

/**
 * One turn's stats sink: the gateway's sink, with what the relay noticed
 * added to the physical sample it concerns (R6.1). The relay hears a body's
 * records while runTurn reads it, and runTurn records that request's sample
 * when the body ends, so a notice goes into the next sample recorded. The
 * sample is a new object: a recorded one never changes (R4.11).
 */
export class RelayStatsSink implements StatsSink {
  readonly #sink: StatsSink;
  #droppedAfterEnd = 0;
  #unrecorded = false;

  constructor(sink: StatsSink) {
    this.#sink = sink;
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
    if (!this.#unrecorded) return this.#sink.recordUsage(sample);
    this.#unrecorded = false;
    return this.#sink.recordUsage({ ...sample, warnings: Object.freeze([...sample.warnings, RELAY_DROPPED_AFTER_END]) });
  }

  recordTurn(turn: TurnRecord): void | Promise<void> {
    return this.#sink.recordTurn(turn);
  }
}
