/** Reasoning deltas joined into one string at a time. */
const JOIN_EVERY = 64;

/**
 * A segment's reasoning text, kept in memory only (R4.10) for the recovery
 * checkpoint (R4.3), and only while a recovery can still use it (see `drop`
 * and `maxChars`).
 *
 * Deltas are collected in an array and joined every JOIN_EVERY of them: a
 * string built with `+=` per word-sized delta holds every delta and a link
 * per delta (about 7 bytes per character), a joined one about 1, and a long
 * thinking phase is held by its open stream until the answer starts
 * (`node bench/decode/reasoning-memory.mjs`).
 */
export class ReasoningText {
  private joined = '';
  /** The deltas since the last join. */
  private recent: string[] = [];
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
    this.recent.push(delta);
    if (this.recent.length === JOIN_EVERY) this.join();
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
    // Checked on every wire read once text has come: only the first call has anything to let go.
    if (!this.kept && this.joined === '' && this.recent.length === 0) return;
    this.kept = false;
    this.joined = '';
    this.recent = [];
  }

  /** Everything kept, as one string ('' once dropped). */
  text(): string {
    this.join();
    return this.joined;
  }

  private join(): void {
    if (this.recent.length === 0) return;
    this.joined += this.recent.join('');
    this.recent = [];
  }
}
