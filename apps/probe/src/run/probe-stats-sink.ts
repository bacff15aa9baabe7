import type { StatsSink, TurnRecord, UsageSample } from '@turnguard/core';
import type { StatsStore } from '@turnguard/stats';

/**
 * Collects the stats samples of one probe run (they go into result.json and
 * the trace) and forwards every record, unchanged, to the `stats.json` store.
 *
 * runTurn swallows a sink that throws (a stats failure must never break a
 * turn), so a record the store refuses would vanish without a word; this
 * sink reports it instead, by error code only.
 */
export class ProbeStatsSink implements StatsSink {
  readonly samples: UsageSample[] = [];
  readonly turns: TurnRecord[] = [];
  readonly #store: StatsStore | undefined;
  readonly #onWarning: (text: string) => void;
  readonly #pending: Promise<void>[] = [];

  constructor(store: StatsStore | undefined, onWarning: (text: string) => void) {
    this.#store = store;
    this.#onWarning = onWarning;
  }

  recordUsage(sample: UsageSample): void {
    this.samples.push(sample);
    this.#forward('sample', (store) => store.recordUsage(sample));
  }

  recordTurn(turn: TurnRecord): void {
    this.turns.push(turn);
    this.#forward('turn', (store) => store.recordTurn(turn));
  }

  /** Resolves once every forwarded record has been handed to the store (the store never rejects these). */
  async settle(): Promise<void> {
    await Promise.all(this.#pending);
  }

  #forward(what: string, record: (store: StatsStore) => Promise<void>): void {
    if (this.#store === undefined) return;
    try {
      this.#pending.push(record(this.#store));
    } catch (error) {
      this.#onWarning(`the stats store refused a ${what}: ${(error as { code?: string }).code ?? 'ERROR'}`);
    }
  }
}
