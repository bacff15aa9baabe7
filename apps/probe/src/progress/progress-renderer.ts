import type { ProgressTracker } from './progress-tracker.js';

export interface ProgressOutput {
  write(text: string): void;
  /** `process.stdout.isTTY`: redraw one status line in place; otherwise print plain lines only. */
  isTTY: boolean;
  /** Terminal width, to keep the redrawn line on one row. */
  columns?: number;
}

const CLEAR_LINE = '\r\x1b[2K';
const REDRAW_INTERVAL_MS = 80;

function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)}s`;
}

/**
 * Live progress of one scenario run. On a TTY a single status line (phase,
 * elapsed, characters per segment, retries waited) is redrawn in place and
 * notices scroll above it; without a TTY every notice is one plain line with
 * no control characters, so logs and CI output stay readable (R9.2).
 */
export class ProgressRenderer {
  readonly #output: ProgressOutput;
  readonly #label: string;
  readonly #startedAt: number;
  readonly #now: () => number;
  #tracker: ProgressTracker | undefined;
  #lastDrawAt = Number.NEGATIVE_INFINITY;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(output: ProgressOutput, label: string, now: () => number = Date.now) {
    this.#output = output;
    this.#label = label;
    this.#now = now;
    this.#startedAt = now();
  }

  /** Starts drawing; on a TTY the elapsed time keeps ticking during silent waits (backoff, retry-after). */
  attach(tracker: ProgressTracker): void {
    this.#tracker = tracker;
    if (!this.#output.isTTY) {
      this.#output.write(`${this.#label} started\n`);
      return;
    }
    this.#draw();
    this.#timer = setInterval(() => this.#draw(), 250);
    this.#timer.unref?.();
  }

  notice(text: string): void {
    const line = `${this.#label} +${formatSeconds(this.#now() - this.#startedAt)} ${text}`;
    if (!this.#output.isTTY) {
      this.#output.write(`${line}\n`);
      return;
    }
    this.#output.write(`${CLEAR_LINE}  ${line}\n`);
    this.#draw();
  }

  /** Redraws the status line, at most every 80 ms (deltas arrive far faster). */
  update(): void {
    if (!this.#output.isTTY) return;
    if (this.#now() - this.#lastDrawAt < REDRAW_INTERVAL_MS) return;
    this.#draw();
  }

  /** Replaces the status line with the final line of the run. */
  end(finalLine: string): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#output.write(`${this.#output.isTTY ? CLEAR_LINE : ''}${finalLine}\n`);
  }

  describeStatus(): string {
    const tracker = this.#tracker;
    if (tracker === undefined) return this.#label;
    const retries = tracker.retries === 0 ? 'no retries' : `${tracker.retries} retries, ${tracker.retryWaitMs} ms waited`;
    return `${this.#label} · ${tracker.phase} · ${formatSeconds(this.#now() - this.#startedAt)} · ${tracker.describeSegments()} · ${retries}`;
  }

  #draw(): void {
    this.#lastDrawAt = this.#now();
    // Some pseudo-terminals report 0 columns; fall back to a common width then.
    const columns = this.#output.columns !== undefined && this.#output.columns > 0 ? this.#output.columns : 120;
    const width = Math.max(20, columns - 1);
    this.#output.write(`${CLEAR_LINE}${this.describeStatus().slice(0, width)}`);
  }
}
