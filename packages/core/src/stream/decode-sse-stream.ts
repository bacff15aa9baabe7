import type { ByteStream, ByteStreamReader, ByteStreamReadResult } from './byte-stream.js';
import { SseFramer, type SseRecordSink } from './sse-framer.js';
import { Utf8ChunkDecoder } from './utf8-chunk-decoder.js';
import { ignore } from '../internal/ignore.js';

/** One SSE record (eventsource-parser's `EventSourceMessage` fits). */
export interface SseRecord {
  event?: string | undefined;
  data: string;
}

/**
 * What to do with a last record the body ends without its blank line (each
 * protocol's rule, decision 0320): `drop` it (Messages: the SSE spec, as the
 * Anthropic SDK reads it), keep it when its lines are complete
 * (`complete-lines`, Responses), or keep it `always` (Chat: openai-node
 * flushes its line decoder).
 */
export type LastRecordRule = 'drop' | 'complete-lines' | 'always';

/** Records → events, appended to the caller's per-read batch. Must not throw. */
export interface SseRecordDecoder<Event> {
  pushRecordEvents(eventName: string | undefined, data: string, events: Event[]): void;
  /** The stream's closing events (at least `stream-end`), after the body ended. */
  pushEndEvents(events: Event[]): void;
  /** Called once when the body has ended, before its last records are flushed. */
  markBodyEnd?(): void;
}

/**
 * One SSE record as the framer read it, with what the decoder made of it:
 * what an observer of a body's records sees (the gateway's relay, R8.13).
 */
export interface ObservedSseRecord<Event> {
  /**
   * The record's own text, from its first line to the blank line that
   * dispatched it. A record the body ended without its blank line (kept by
   * the last-record rule) ends with the line ends that rule supplied, so it
   * is always a whole record.
   */
  raw: string;
  event: string | undefined;
  data: string;
  /** The events the decoder made of this record, in order (none for a record it ignores). */
  events: readonly Event[];
  /** Framed after the body ended (a held CR, or the last-record rule). */
  atEndOfBody: boolean;
}

/**
 * Sees every record of one body, in order, each once, as soon as it is
 * framed and decoded — before the consumer has taken its events. Only whole
 * records are reported: bytes after the last one at a cut never are.
 */
export interface SseRecordObserver<Event> {
  onRecord(record: ObservedSseRecord<Event>): void;
}

export interface DecodeSseStreamOptions<Event> {
  decoder: SseRecordDecoder<Event>;
  lastRecord: LastRecordRule;
  /** Told each record with its raw text and its events (off when absent: no raw text is kept). */
  records?: SseRecordObserver<Event> | undefined;
}

type State = 'idle' | 'reading' | 'ending' | 'closed';

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined }) as IteratorReturnResult<undefined>;

/**
 * How much of one network read is framed ahead of the consumer. A plaintext
 * upstream on the same host (a local model server) can hand over 64 KiB of
 * records in one read; framed whole, all of them were decoded and judged
 * before the first was handed over, on the client's first byte (R8.2). A part
 * at a time, the first record waits only for its own part; the rest is framed
 * as the consumer pulls, synchronously, without another read. 16 KiB is TLS's
 * largest record, so a read from a TLS upstream is never split; smaller parts
 * cost the decoder 13–23 % on 16–64 KiB reads, 16 KiB parts ≈ 5 % on 64 KiB
 * ones (`node bench/gateway/first-byte-timeline.mjs --burst`, decision 0342).
 */
const PART_BYTES = 16_384;

/**
 * Bytes of an SSE body → decoded events, incrementally (R7.2), as ONE
 * hand-written async iterator shared by the three stream decoders. Each
 * network read is decoded into batches, a part (PART_BYTES) at a time;
 * `next()` hands out a batch's items as already-resolved promises and reads
 * the body only when the read is all framed and the batch is empty. An
 * async generator cost ≈ 0.35–0.4 µs per event here, about as much as
 * decoding the event (its `yield` awaits the value and resumes a
 * suspended frame; `node bench/decode/run.mjs`, decision 0320). The
 * generator contract is kept:
 * - events in order; a `next()` called before the previous one settled is
 *   queued behind it, as an async generator queues it;
 * - `return()`/`throw()` cancel the body (the upstream is released) and drop
 *   what was not handed out; after them `next()` is done;
 * - a failed read rejects its `next()` after every earlier event was served,
 *   cancels the body, and ends the iteration;
 * - the decoder's end events (`stream-end`) come last.
 */
export function decodeSseStream<Event>(body: ByteStream, options: DecodeSseStreamOptions<Event>): AsyncGenerator<Event, void, undefined> {
  return new SseStreamIterator(body, options);
}

class SseStreamIterator<Event> implements AsyncGenerator<Event, void, undefined>, SseRecordSink {
  readonly #body: ByteStream;
  readonly #options: DecodeSseStreamOptions<Event>;
  readonly #events: Event[] = [];
  #index = 0;
  #state: State = 'idle';
  #reader: ByteStreamReader | undefined;
  #framer: SseFramer | undefined;
  readonly #textDecoder = new Utf8ChunkDecoder();
  #endsWithNewline = true;
  /** The part of the current network read not framed yet (a view of its bytes, held until framed). */
  #unframed: Uint8Array | undefined;
  /** The body failed after a held CR completed a record: served once that record's events were (R8.12). */
  #failure: { error: unknown } | undefined = undefined;
  /** Calls not yet settled; while any is, new calls queue behind `#tail`. */
  #pending = 0;
  #tail: Promise<unknown> = Promise.resolve();

  constructor(body: ByteStream, options: DecodeSseStreamOptions<Event>) {
    this.#body = body;
    this.#options = options;
  }

  /** Called by the framer for each record: decoded into the current batch (and shown to the observer, if any). */
  pushRecord(eventName: string | undefined, data: string, raw: string | undefined): void {
    const { decoder, records } = this.#options;
    if (records === undefined) {
      decoder.pushRecordEvents(eventName, data, this.#events);
      return;
    }
    const first = this.#events.length;
    decoder.pushRecordEvents(eventName, data, this.#events);
    records.onRecord({ raw: raw ?? '', event: eventName, data, events: this.#events.slice(first), atEndOfBody: this.#state === 'ending' });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<Event, void>> {
    if (this.#pending === 0) {
      // An event of the current batch, or the end: no read, no queueing. The step is made here,
      // where it is resolved: `Promise.resolve` looks up `then` on what it is given, which costs
      // little for an object it can see made (`node bench/decode/run.mjs`).
      if (this.#index < this.#events.length) return Promise.resolve({ done: false, value: this.#events[this.#index++]! });
      if (this.#state === 'closed') return Promise.resolve(DONE);
      return this.#start(this.#read());
    }
    return this.#start(this.#tail.then(this.#nextQueued, this.#nextQueued));
  }

  /**
   * The next event of the current batch, synchronously, when one is there and
   * no call is in flight; undefined otherwise (then `next()` reads). runTurn's
   * segment reader takes events this way: no promise or step object per event.
   */
  takeBuffered(): Event | undefined {
    if (this.#pending !== 0) return undefined;
    if (this.#index >= this.#events.length && !this.#frameRest()) return undefined;
    return this.#events[this.#index++];
  }

  return(): Promise<IteratorResult<Event, void>> {
    return this.#start(this.#pending === 0 ? this.#stop(undefined, false) : this.#tail.then(() => this.#stop(undefined, false), () => this.#stop(undefined, false)));
  }

  throw(error: unknown): Promise<IteratorResult<Event, void>> {
    return this.#start(this.#pending === 0 ? this.#stop(error, true) : this.#tail.then(() => this.#stop(error, true), () => this.#stop(error, true)));
  }

  /** A call queued behind another: what is at hand once that one settled, else a read. */
  readonly #nextQueued = (): IteratorResult<Event, void> | Promise<IteratorResult<Event, void>> => this.#stepAtHand() ?? this.#read();

  /** Tracks a started call: later calls queue behind it until it settles (one promise per read, not per event). */
  #start(result: Promise<IteratorResult<Event, void>>): Promise<IteratorResult<Event, void>> {
    this.#pending += 1;
    this.#tail = result;
    result.then(this.#settle, this.#settle);
    return result;
  }

  readonly #settle = (): void => {
    this.#pending -= 1;
  };

  async #stop(error: unknown, rethrow: boolean): Promise<IteratorResult<Event, void>> {
    await this.#close();
    if (rethrow) throw error;
    return DONE;
  }

  /** The batch's next event, or the end once the body ended; undefined when only a read can tell. */
  #stepAtHand(): IteratorResult<Event, void> | undefined {
    if (this.#index < this.#events.length || this.#frameRest()) return { done: false, value: this.#events[this.#index++]! };
    return this.#state === 'closed' ? DONE : undefined;
  }

  /**
   * Reads until the batch has an event (or the body ended): a `then` per read
   * with two callbacks made once per stream, not an async method, which
   * would keep a suspended frame per open stream while it waits for the
   * network (`node bench/gateway/heap-census.mjs gateway 50`).
   */
  #read(): Promise<IteratorResult<Event, void>> {
    if (this.#frameRest()) return Promise.resolve({ done: false, value: this.#events[this.#index++]! });
    const failure = this.#failure;
    if (failure !== undefined) {
      this.#failure = undefined;
      return this.#onReadFailed(failure.error);
    }
    const reader = this.#reader ?? this.#open();
    this.#events.length = 0;
    this.#index = 0;
    return reader.read().then(this.#onRead, this.#onReadRejected);
  }

  readonly #onRead = (result: ByteStreamReadResult): IteratorResult<Event, void> | Promise<IteratorResult<Event, void>> => {
    try {
      // `return()` cannot run while a read is pending (it is queued), so the state is still 'reading'.
      if (result.done) this.#finishBody(this.#reader!);
      else this.#decodeChunk(result.value);
    } catch (error) {
      return this.#onReadFailed(error);
    }
    // The step itself when there is one, not a promise of it: a callback that returns a promise
    // costs its `then` two more microtasks (a thenable job).
    return this.#stepAtHand() ?? this.#read();
  };

  /**
   * The body failed (a cut: FIN or RST mid-body, an abort). No byte can
   * follow, so a CR held back as the possible first half of a CRLF ends its
   * line after all: a record it completed — a bare-CR stream's last whole
   * record, maybe its terminal frame — is served before the failure, as an
   * LF-framed one would be (R8.12, R8.13).
   */
  readonly #onReadRejected = (error: unknown): IteratorResult<Event, void> | Promise<IteratorResult<Event, void>> => {
    if (this.#state === 'reading') {
      try {
        this.#framer?.end();
      } catch {
        // A decoder that throws here fails with the body's own error below.
      }
      const step = this.#stepAtHand();
      if (step !== undefined) {
        this.#failure = { error };
        return step;
      }
    }
    return this.#onReadFailed(error);
  };

  /** A failed read (or a decoder bug): nothing more comes; release the upstream. */
  readonly #onReadFailed = async (error: unknown): Promise<never> => {
    await this.#close();
    throw error;
  };

  #open(): ByteStreamReader {
    const reader = this.#body.getReader();
    this.#reader = reader;
    this.#framer = new SseFramer(this, { keepRaw: this.#options.records !== undefined });
    this.#state = 'reading';
    return reader;
  }

  /**
   * A new batch from the rest of the current read, a part at a time, until one has an event; false
   * when the read is all framed (or the decoder threw: that failure is served after the events
   * before it, by the next read).
   */
  #frameRest(): boolean {
    while (this.#unframed !== undefined) {
      this.#events.length = 0;
      this.#index = 0;
      try {
        this.#decodeChunk(this.#unframed);
      } catch (error) {
        this.#unframed = undefined;
        this.#failure = { error };
        return false;
      }
      if (this.#events.length > 0) return true;
    }
    return false;
  }

  /** Frames the first part of `value` (all of it when short) and keeps the rest for `#frameRest`. */
  #decodeChunk(value: Uint8Array): void {
    let part = value;
    this.#unframed = undefined;
    if (value.length > PART_BYTES) {
      part = value.subarray(0, PART_BYTES);
      this.#unframed = value.subarray(PART_BYTES);
    }
    const text = this.#textDecoder.decode(part);
    if (this.#options.lastRecord === 'complete-lines' && text !== '') this.#endsWithNewline = endsWithLineBreak(text);
    this.#framer!.feed(text);
  }

  #finishBody(reader: ByteStreamReader): void {
    const { decoder, lastRecord } = this.#options;
    const framer = this.#framer!;
    decoder.markBodyEnd?.();
    this.#state = 'ending';
    const rest = this.#textDecoder.end();
    if (rest !== '') {
      if (lastRecord === 'complete-lines') this.#endsWithNewline = endsWithLineBreak(rest);
      framer.feed(rest);
    }
    framer.end();
    if (lastRecord === 'always') framer.feed('\n\n');
    else if (lastRecord === 'complete-lines' && this.#endsWithNewline) framer.feed('\n');
    decoder.pushEndEvents(this.#events);
    this.#state = 'closed';
    reader.releaseLock();
  }

  /** Ends the iteration early: drops the unserved batch and cancels the body (not after it ended normally). */
  async #close(): Promise<void> {
    const wasOpen = this.#state !== 'closed';
    const reader = this.#reader;
    this.#state = 'closed';
    this.#events.length = 0;
    this.#index = 0;
    this.#unframed = undefined;
    if (!wasOpen) return;
    if (reader === undefined) {
      // Stopped before the first read: still release the upstream.
      if (!this.#body.locked) await this.#body.cancel().catch(ignore);
      return;
    }
    await reader.cancel().catch(ignore);
    reader.releaseLock();
  }
}

function endsWithLineBreak(text: string): boolean {
  const last = text.charCodeAt(text.length - 1);
  return last === 10 || last === 13;
}
