/** Learning attempts a decoder may spend without a hit. */
const MAX_ATTEMPTS = 8;
/**
 * Candidate records parsed fully before the first attempt: a stream's first
 * records arrive in its first network read, which is on the gateway's
 * time-to-first-byte path (learning measured ≈ 40 µs of it there, decision
 * 0320), and a stream that short never pays learning back.
 */
const CANDIDATES_BEFORE_LEARNING = 4;

/**
 * When a stream decoder may spend the cost of learning a `RecordTemplate`
 * (decision 0320): not from a stream's first candidate records, and at
 * most MAX_ATTEMPTS attempts without a hit — each record that matches a
 * learned template earns one back, so a shape that never repeats stops
 * costing. Shared by the three adapters' decoders.
 */
export class TemplateLearningBudget {
  #attemptsLeft: number;
  #candidatesToSkip: number;

  /** `enabled: false` never learns (the full-parse reference the fast path is tested against). */
  constructor(enabled: boolean) {
    this.#attemptsLeft = enabled ? MAX_ATTEMPTS : 0;
    this.#candidatesToSkip = enabled ? CANDIDATES_BEFORE_LEARNING : 0;
  }

  /** Whether any attempt is left (the cheap check before looking at a record). */
  get open(): boolean {
    return this.#attemptsLeft > 0;
  }

  /** A record the decoder could learn from: true when it may try now (and the attempt is counted). */
  take(): boolean {
    if (this.#attemptsLeft === 0) return false;
    if (this.#candidatesToSkip > 0) {
      this.#candidatesToSkip -= 1;
      return false;
    }
    this.#attemptsLeft -= 1;
    return true;
  }

  /** A record matched a learned template: one attempt back, up to the maximum. */
  earn(): void {
    if (this.#attemptsLeft < MAX_ATTEMPTS) this.#attemptsLeft += 1;
  }
}
