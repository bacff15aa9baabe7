import type { TurnError } from '../errors/turn-error.js';
import { createUpstreamTimeLimitError, pickUpstreamTimeLimit, type AttemptPhase, type UpstreamTimeLimitName, type UpstreamTimeLimits } from '../failover/upstream-time-limits.js';
import type { ObservedSseRecord, SseRecordObserver } from '../stream/decode-sse-stream.js';
import type { DecodedStreamEvent } from '../types/turn-event.js';

/** What an attempt's watch needs from the turn. */
export interface WatchContext {
  /**
   * The turn's stop (host abort, consumer, R4.7's limit), with its reason, once it stopped: it stops
   * the attempt too. Read, not listened to: a stop while the attempt runs comes through `abortWithTurn`.
   */
  turnStop(): { reason: unknown } | undefined;
  now(): number;
  limits: UpstreamTimeLimits;
}

/**
 * The time limits of one physical request (R11.4), each ending only that
 * attempt: response headers (from the request's send to its response),
 * first record (from the headers to the body's first data record) and the
 * stalls (the longest gap between data records, before and after visible
 * text). A data record — a ping or keep-alive event included — proves the
 * stream alive; an SSE comment does not (decision 0400), so the clock is
 * read from the SSE record observer, which only ever sees records.
 *
 * One timer per attempt, re-armed lazily: a record only notes its time and
 * a phase change only moves the deadline; the timer is set again only when
 * the deadline came closer than it (a shorter limit) or when it fires early
 * and time is left. A fault-free request pays one setTimeout and one
 * clearTimeout; the turn's stop reaches the attempt through `abortWithTurn`,
 * not a listener per attempt.
 */
export class AttemptWatch {
  readonly #controller = new AbortController();
  readonly #context: WatchContext;
  #phase: AttemptPhase = 'awaiting-headers';
  #visibleText = false;
  #lastRecordAt = 0;
  #phaseStartedAt = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** When the pending timer fires (epoch ms of the context's clock). */
  #timerAt = Number.POSITIVE_INFINITY;
  #fired: { name: UpstreamTimeLimitName; ms: number } | undefined;

  constructor(context: WatchContext) {
    this.#context = context;
    const stop = context.turnStop();
    if (stop !== undefined) this.#controller.abort(stop.reason);
  }

  /** The turn stopped (host abort, consumer, R4.7's limit): the attempt stops with it. */
  abortWithTurn(reason: unknown): void {
    this.#controller.abort(reason);
  }

  /** The attempt's own stop: the turn's, or a limit that fired. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The limit that ended the attempt, if one did (and the turn itself was not stopped first). */
  get fired(): { name: UpstreamTimeLimitName; ms: number } | undefined {
    return this.#context.turnStop() !== undefined ? undefined : this.#fired;
  }

  /**
   * R11.4's connect limit is the transport's to enforce (only it can tell a
   * connection from a response: the gateway's undici Agent takes it as its
   * connect timeout); a connect time-out the transport reports is ended
   * under this limit's code. Undefined when the limit is off.
   */
  get connectLimitMs(): number | undefined {
    return this.#context.limits.connectMs;
  }

  /** The error for the limit that fired (R11.4: its own code, the real seconds). */
  errorFor(outputDelivered: boolean, facts: { upstream: string; model: string }): TurnError | undefined {
    const fired = this.fired;
    return fired === undefined ? undefined : createUpstreamTimeLimitError(fired.name, fired.ms, { outputDelivered, ...facts });
  }

  /** The request is about to be sent: the response-header limit runs. */
  sending(): void {
    this.#enter('awaiting-headers');
  }

  /** A successful response's head came: the first-record limit runs. */
  responded(): void {
    this.#enter('awaiting-first-record');
  }

  /** Wraps the host's record observer (if any) so every record of the body resets the stall clock. */
  observe(inner: SseRecordObserver<DecodedStreamEvent> | undefined): SseRecordObserver<DecodedStreamEvent> {
    return {
      onRecord: (record) => {
        this.#noteRecord(record);
        inner?.onRecord(record);
      },
    };
  }

  /** The attempt is over: no limit fires any more. */
  dispose(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
  }

  #noteRecord(record: ObservedSseRecord<DecodedStreamEvent>): void {
    this.#lastRecordAt = this.#context.now();
    if (this.#phase !== 'streaming') this.#enter('streaming');
    if (!this.#visibleText && hasVisibleText(record.events)) {
      this.#visibleText = true;
      // The after-output limit is the shorter one: the deadline may have come closer than the timer.
      this.#schedule();
    }
  }

  #enter(phase: AttemptPhase): void {
    this.#phase = phase;
    this.#phaseStartedAt = this.#context.now();
    this.#lastRecordAt = this.#phaseStartedAt;
    this.#schedule();
  }

  /** The current limit's deadline, or undefined when that limit is off. */
  #deadline(): { limit: { name: UpstreamTimeLimitName; ms: number }; at: number } | undefined {
    const limit = pickUpstreamTimeLimit(this.#context.limits, this.#phase, this.#visibleText);
    if (limit === undefined) return undefined;
    const since = this.#phase === 'streaming' ? this.#lastRecordAt : this.#phaseStartedAt;
    return { limit, at: since + limit.ms };
  }

  /** A timer no later than the deadline: a pending one that fires earlier is kept (it re-checks then). */
  #schedule(): void {
    if (this.#controller.signal.aborted) return;
    const deadline = this.#deadline();
    if (deadline === undefined || deadline.at >= this.#timerAt) return;
    clearTimeout(this.#timer);
    this.#timerAt = deadline.at;
    this.#timer = setTimeout(this.#check, Math.max(0, deadline.at - this.#context.now()));
  }

  readonly #check = (): void => {
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    const deadline = this.#deadline();
    if (deadline === undefined || this.#controller.signal.aborted) return;
    if (this.#context.now() < deadline.at) {
      this.#schedule();
      return;
    }
    this.#fired = deadline.limit;
    this.#controller.abort('time-limit');
  };
}

function hasVisibleText(events: readonly DecodedStreamEvent[]): boolean {
  for (const event of events) if (event.type === 'text-delta' && event.delta !== '') return true;
  return false;
}

/** undici's connect time-out (`UND_ERR_CONNECT_TIMEOUT`, `ConnectTimeoutError`), anywhere in the cause chain. */
export function isConnectTimeout(thrown: unknown): boolean {
  let current: unknown = thrown;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    const { code, name } = current as { code?: unknown; name?: unknown };
    if (code === 'UND_ERR_CONNECT_TIMEOUT' || name === 'ConnectTimeoutError') return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
