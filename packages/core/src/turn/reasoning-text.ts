/** Reasoning deltas per join into the segment's reasoning text. */
const JOIN_EVERY = 64;

/**
 * A segment's reasoning text, kept in memory only (R4.10) for the recovery
 * checkpoint (R4.3), and only while a recovery can still use it (see
 * `drop`). `+=` per delta keeps every delta string alive, plus a cons string
 * per delta, for the whole turn: thousands of small objects that each
 * scavenge copies and then promotes (issue 19: runTurn's scavenge cost 2–3 ms
 * per 20k-chunk turn against its decoder's 1.3). Joined every JOIN_EVERY
 * deltas, a turn keeps two objects per batch instead.
 */
export class ReasoningText {
  private joined = '';
  private readonly parts: string[] = [];

  /** `kept`: false when no recovery can follow this segment (recovery off, or it is the recovery). */
  constructor(private kept: boolean) {}

  add(delta: string): void {
    if (this.kept && this.parts.push(delta) === JOIN_EVERY) this.join();
  }

  /**
   * R4.2: once the segment produced text or a tool call it is never
   * recovered, so its reasoning is let go rather than held by the stream until
   * its end (a long thinking phase, then a long answer), and no more is kept.
   */
  drop(): void {
    if (!this.kept) return;
    this.kept = false;
    this.joined = '';
    this.parts.length = 0;
  }

  /** Everything kept, as one string ('' once dropped). */
  text(): string {
    this.join();
    return this.joined;
  }

  private join(): void {
    if (this.parts.length === 0) return;
    this.joined += this.parts.join('');
    this.parts.length = 0;
  }
}
