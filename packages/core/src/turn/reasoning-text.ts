/** Reasoning deltas per fold of the rope into the segment's reasoning text. */
const FOLD_EVERY = 64;

/**
 * A segment's reasoning text, kept in memory only (R4.10) for the recovery
 * checkpoint (R4.3), and only while a recovery can still use it (see `drop`
 * and `maxChars`).
 *
 * Deltas are appended with `+=`: V8 makes one cons string per delta (≈ 5 ns),
 * where an array push and a `join` every 64 cost ≈ 20 ns per delta on their
 * own and ≈ 45 in runTurn's path (bench/decode/turn-phases.mjs, issue 19). A
 * rope holds every delta and a cons string per delta (≈ 7 bytes per
 * character for word-sized deltas), so every FOLD_EVERY deltas it is
 * flattened (`fold`) and appended to `joined`, which then holds ≈ 1 byte per
 * character and one cons string per fold (reasoning-text.test.ts).
 */
export class ReasoningText {
  private joined = '';
  /** The deltas since the last fold, as a rope. */
  private recent = '';
  private recentCount = 0;
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
    this.recent += delta;
    if (++this.recentCount === FOLD_EVERY) this.fold();
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
    this.recent = '';
    this.recentCount = 0;
  }

  /** Everything kept, as one string ('' once dropped). */
  text(): string {
    this.fold();
    return this.joined;
  }

  private fold(): void {
    if (this.recentCount === 0) return;
    // Reading a character flattens a cons string in place (V8's String::Flatten): the rope's
    // deltas and cons strings become garbage, one flat string is kept.
    this.recent.charCodeAt(0);
    this.joined += this.recent;
    this.recent = '';
    this.recentCount = 0;
  }
}
