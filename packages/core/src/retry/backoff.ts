/** R1.4 defaults. */
export const DEFAULT_INITIAL_DELAY_MS = 500;
export const DEFAULT_MAX_DELAY_MS = 32_000;
export const DEFAULT_BACKOFF_FACTOR = 2;
export const DEFAULT_JITTER_RATIO = 0.25;

export interface BackoffOptions {
  initialDelayMs?: number;
  /** Cap on the exponential part; jitter is added on top (R1.4: "min(32 s, …) plus up to 25 %"). */
  maxDelayMs?: number;
  factor?: number;
  /** Up to this fraction of the capped delay is added as jitter. */
  jitterRatio?: number;
  /** Injectable so tests choose the jitter; values are clamped to [0, 1]. */
  random?: () => number;
}

interface ResolvedBackoffOptions {
  initialDelayMs: number;
  maxDelayMs: number;
  factor: number;
  jitterRatio: number;
  random: () => number;
}

/**
 * Backoff as an immutable value (cockatiel `ExponentialBackoff` style):
 * `next()` returns the value for the next retry, never mutating this one, so
 * a retry loop can keep or discard it freely.
 *
 * Retry n (1-based) waits `min(maxDelayMs, initialDelayMs × factor^(n-1))`
 * plus `jitterRatio × that × random()`, rounded to whole milliseconds.
 */
export class ExponentialBackoff {
  /** 0 before the first retry. */
  readonly attempt: number;
  /** The wait chosen for retry `attempt`; 0 before the first `next()`. */
  readonly delayMs: number;
  private readonly options: ResolvedBackoffOptions;

  private constructor(options: ResolvedBackoffOptions, attempt: number, delayMs: number) {
    this.options = options;
    this.attempt = attempt;
    this.delayMs = delayMs;
  }

  static create(options: BackoffOptions = {}): ExponentialBackoff {
    return new ExponentialBackoff(
      {
        initialDelayMs: nonNegative(options.initialDelayMs, DEFAULT_INITIAL_DELAY_MS),
        maxDelayMs: nonNegative(options.maxDelayMs, DEFAULT_MAX_DELAY_MS),
        factor: nonNegative(options.factor, DEFAULT_BACKOFF_FACTOR),
        jitterRatio: nonNegative(options.jitterRatio, DEFAULT_JITTER_RATIO),
        random: options.random ?? Math.random,
      },
      0,
      0,
    );
  }

  next(): ExponentialBackoff {
    const attempt = this.attempt + 1;
    const { initialDelayMs, maxDelayMs, factor, jitterRatio, random } = this.options;
    const cappedDelayMs = Math.min(maxDelayMs, initialDelayMs * factor ** (attempt - 1));
    const jitterMs = cappedDelayMs * jitterRatio * clampUnit(random());
    return new ExponentialBackoff(this.options, attempt, Math.round(cappedDelayMs + jitterMs));
  }
}

function nonNegative(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value >= 0 ? value : fallback;
}

function clampUnit(value: number): number {
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
}
