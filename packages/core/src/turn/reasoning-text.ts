/** Reasoning deltas per join into the segment's reasoning text. */
const JOIN_EVERY = 64;

/**
 * A segment's reasoning text, kept in memory only (R4.10) for the recovery
 * checkpoint (R4.3), and only while a recovery can still use it (see `drop`
 * and `maxChars`). `+=` per delta keeps every delta string alive, plus a
 * cons string per delta, for the whole turn: thousands of small objects that
 * each scavenge copies and then promotes (issue 19: runTurn's scavenge cost
 * 2–3 ms per 20k-chunk turn against its decoder's 1.3). Joined every
 * JOIN_EVERY deltas, a turn keeps two objects per batch instead.
 */
export class ReasoningText {
  private joined = '';
  private readonly parts: string[] = [];
  /** Characters added so far, and whether any of them is not whitespace. */
  private chars = 0;
  private nonBlank = false;

  /**
   * `kept`: false when no recovery can follow this segment (recovery off, or
   * it is the recovery). `maxChars`: the checkpoint's limit (R4.7): once the
   * text is longer and not blank, the recovery decision is settled
   * (`checkpoint-too-large`), so nothing more is kept: a long thinking phase
   * holds at most this much per open stream.
   */
  constructor(
    private kept: boolean,
    private readonly maxChars: number,
  ) {}

  add(delta: string): void {
    if (!this.kept) return;
    if (this.parts.push(delta) === JOIN_EVERY) this.join();
    this.chars += delta.length;
    // trim() allocates: once one delta was not blank, the rest need no check.
    if (!this.nonBlank && delta.trim() !== '') this.nonBlank = true;
    // What is kept then answers the decision's two questions as the whole text would: longer than the limit, not blank.
    if (this.nonBlank && this.chars > this.maxChars) this.kept = false;
  }

  /**
   * R4.2: once the segment produced text or a tool call it is never
   * recovered, so its reasoning is let go rather than held by the stream until
   * its end (a long thinking phase, then a long answer), and no more is kept.
   */
  drop(): void {
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
