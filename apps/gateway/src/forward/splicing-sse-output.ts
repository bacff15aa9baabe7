import type { Protocol, TurnEvent } from '@turnguard/core';
import { createSseTextEncoder, type SpliceableSseEncoder } from './create-sse-encoder.js';
import { dropChatUsageRecords, findLastSequenceNumber, PendingSseBytes } from './pending-sse-bytes.js';
import type { UpstreamByteTap } from './tap-upstream-bytes.js';

export interface SplicingSseOutputOptions {
  protocol: Protocol;
  /** Chat only: the client did not ask for usage, so usage-only chunks are left out (see createEventFilter). */
  dropChatUsage: boolean;
}

type Mode = 'holding' | 'raw' | 'encode';

/** Where output goes before `start`: one function for every instance, not a closure each. */
const writeNothing = (): void => undefined;

/**
 * The SSE the client gets (R8.2, issue 7): the upstream's own bytes while
 * nothing needs changing, the adapter's encoder from a splice point on.
 *
 * - Raw: once the first event the client must see came from an upstream
 *   body, that body's bytes are written as they are — every field the
 *   adapters do not model (logprobs, citations, server-tool blocks…) reaches
 *   the client — but only whole SSE records, and only once every event decoded
 *   from them was consumed (`onDrained`), so a record that turns out to be an
 *   in-stream error, or bytes of an attempt that is then retried, never go out.
 * - Splice: at `recovery-start` or a final `error`, raw output stops at the
 *   last whole record already written; the events consumed since are encoded
 *   instead, then everything after. The encoder has observed every event
 *   behind the written bytes (state only, no rendering), so it continues the same
 *   response: no second `message_start` / `response.created`, the next block
 *   and output indices, the upstream's ids; Responses `sequence_number`s
 *   continue after the last relayed one.
 * - Encode: a turn whose first visible event is not an upstream body's (a
 *   heartbeat while retrying) is encoded throughout, as before.
 */
export class SplicingSseOutput implements UpstreamByteTap {
  readonly #options: SplicingSseOutputOptions;
  /** Made on first use, after the upstream request went out: not on the first-byte path of every request. */
  #encoderMade: SpliceableSseEncoder | undefined;
  #write: (chunk: string | Uint8Array) => void = writeNothing;
  #mode: Mode = 'holding';
  #bodies = 0;
  /** The raw body ended or was replaced (a new body started): nothing more of it may be written. */
  #rawClosed = false;
  /** Bytes of the current body read by the decoder and not yet written. */
  #pending = new PendingSseBytes();
  /** Events consumed since the last raw write: their bytes are in `#pending`. */
  readonly #unwritten: TurnEvent[] = [];
  /**
   * Responses only: the last raw write, where a splice reads the last `sequence_number` sent. Not
   * kept for Chat and Messages, where nothing reads it: it would hold a network read's buffer for
   * the life of every open stream (issue 19, per-stream memory).
   */
  #lastWritten: Uint8Array[] | undefined;
  /** A failure inside a tap callback: it must not look like an upstream failure to runTurn, so it waits for the relay. */
  #failure: { error: unknown } | undefined;

  constructor(options: SplicingSseOutputOptions) {
    this.#options = options;
  }

  get #encoder(): SpliceableSseEncoder {
    return (this.#encoderMade ??= createSseTextEncoder(this.#options.protocol));
  }

  onBodyStart(): void {
    this.#bodies += 1;
    this.#pending = new PendingSseBytes();
    if (this.#mode === 'raw') this.#rawClosed = true;
  }

  onBytes(chunk: Uint8Array): void {
    if (this.#mode === 'encode' || this.#rawClosed) return;
    this.#pending.push(chunk);
  }

  onDrained(): void {
    if (this.#mode !== 'raw' || this.#rawClosed || this.#failure !== undefined) return;
    try {
      this.#writeWholeRecords();
    } catch (error) {
      this.#failure = { error };
    }
  }

  /** The first event the client must see, after the ones held back before it; `write` queues output. */
  start(held: readonly TurnEvent[], write: (chunk: string | Uint8Array) => void): void {
    this.#write = write;
    const first = held[held.length - 1];
    if (this.#bodies > 0 && first !== undefined && first.type !== 'heartbeat') {
      this.#mode = 'raw';
      this.#unwritten.push(...held);
      return;
    }
    this.#mode = 'encode';
    for (const event of held) this.#writeEncoded(event);
  }

  event(event: TurnEvent): void {
    this.#throwFailure();
    if (this.#mode === 'raw') {
      if (!this.#rawClosed && event.type !== 'recovery-start' && event.type !== 'error') {
        this.#unwritten.push(event);
        return;
      }
      this.#switchToEncoder();
    }
    this.#writeEncoded(event);
  }

  /** The turn ended normally. */
  finish(): void {
    this.#throwFailure();
    if (this.#mode === 'raw' && !this.#rawClosed) {
      // The turn ended on the relayed body: its bytes carry the finish and usage already. A last
      // record with no blank line was still decoded (end of body), so it goes out as sent.
      if (this.#pending.size > 0) this.#writeRaw(this.#pending.take(this.#pending.size));
      return;
    }
    if (this.#mode === 'raw') this.#switchToEncoder();
    const tail = this.#encoder.finish();
    if (tail !== '') this.#write(tail);
  }

  #throwFailure(): void {
    if (this.#failure !== undefined) throw this.#failure.error;
  }

  #writeWholeRecords(): void {
    const end = this.#pending.lastRecordEnd;
    if (end === 0) return;
    this.#writeRaw(this.#pending.take(end));
    // The encoder follows what the client has (state only, nothing rendered): the bytes above stand for these
    // events. Observed after the write, so the response's first chunk does not wait for it (decision 0212).
    for (const event of this.#unwritten) this.#encoder.observe(event);
    this.#unwritten.length = 0;
  }

  #writeRaw(pieces: Uint8Array[]): void {
    if (this.#options.protocol === 'responses') this.#lastWritten = pieces;
    for (const piece of this.#options.dropChatUsage ? dropChatUsageRecords(pieces) : pieces) this.#write(piece);
  }

  #switchToEncoder(): void {
    this.#mode = 'encode';
    this.#rawClosed = true;
    this.#pending = new PendingSseBytes();
    if (this.#lastWritten !== undefined && this.#encoder.continueSequenceAt !== undefined) {
      const last = findLastSequenceNumber(this.#lastWritten);
      if (last !== undefined) this.#encoder.continueSequenceAt(last + 1);
    }
    const events = this.#unwritten.splice(0);
    for (const event of events) this.#writeEncoded(event);
  }

  #writeEncoded(event: TurnEvent): void {
    const text = this.#encoder.encodeEvent(event);
    if (text !== '') this.#write(text);
  }
}
