import type { ServerResponse } from 'node:http';
import { selectRelayedResponseHeaders } from './forwarded-headers.js';

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
} as const;

/** An SSE comment line: every SSE parser ignores it (WHATWG HTML §9.2.6, lines starting with ':'). */
const KEEP_ALIVE_COMMENT = ': keep-alive\n\n';

/** Default gap between comment lines while the upstream is silent: well under common 60 s proxy idle limits. */
export const DEFAULT_SSE_KEEP_ALIVE_MS = 15_000;

/**
 * The streaming answer's status and headers, sent as soon as segment 1 is
 * known to be a stream (R8.2, decision 0233): the client sees the
 * upstream's own headers (request ids) at once, and SSE comment lines while
 * the upstream is silent (a model thinking for a minute), so its idle timers
 * do not fire. No frame of the protocol is invented: the first `data:` the
 * client reads is still the upstream's own (its ids), or after a retry before
 * any output, the retry's — invisible to the client.
 */
export class EarlySseHeaders {
  #timer: NodeJS.Timeout | undefined;
  /** The head is written but not on the wire yet: it goes out on its own only if no body byte follows in this turn. */
  #flushPending = false;

  constructor(
    private readonly response: ServerResponse,
    private readonly keepAliveMs: number,
    private readonly onSent: () => void,
  ) {}

  get sent(): boolean {
    return this.response.headersSent;
  }

  /**
   * Sends the status and `upstreamHeaders` (once), then comment lines until
   * `stopKeepAlive`. The head leaves at the end of this turn of the event
   * loop, not at once: the upstream's first records usually arrive in the
   * same network read as its head, and then the head rides with the first
   * body write — one write to the client's socket instead of two.
   */
  send(upstreamHeaders: Record<string, string>): void {
    const { response } = this;
    if (response.headersSent || response.destroyed) return;
    response.writeHead(200, { ...selectRelayedResponseHeaders(upstreamHeaders), ...SSE_HEADERS });
    this.onSent();
    this.#flushPending = true;
    setImmediate(() => this.#flushAlone());
  }

  /** The protocol's own bytes flow now (or the response ended): no more comment lines, and the head goes with them. */
  stopKeepAlive(): void {
    this.#flushPending = false;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Nothing was written in the turn the head was: the upstream is silent after its head, so the client gets it alone, then comments. */
  #flushAlone(): void {
    const { response } = this;
    if (!this.#flushPending || response.destroyed || response.writableEnded) return;
    this.#flushPending = false;
    response.flushHeaders();
    if (this.keepAliveMs > 0) {
      this.#timer = setInterval(() => {
        if (!response.destroyed && !response.writableEnded) response.write(KEEP_ALIVE_COMMENT);
      }, this.keepAliveMs);
      this.#timer.unref();
    }
  }
}
