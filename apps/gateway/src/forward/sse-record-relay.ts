import type { DecodedStreamEvent, Protocol, ResponseBodyInfo, SseRecordObserver, TurnEvent } from '@turnguard/core';
import { chooseBodyOutput } from './choose-body-output.js';
import { createSseTextEncoder, type SpliceableSseEncoder } from './create-sse-encoder.js';
import { createRecordJudge, type ObservedRecord, type RecordJudge } from './judge-sse-records.js';
import { isProtocolEnd } from './protocol-end-record.js';
import { beforeLastRecord } from './turn-disclosure.js';

export interface SseRecordRelayOptions {
  protocol: Protocol;
  /** Chat: the client asked for `stream_options.include_usage` (runTurn always asks upstream, R5.2). */
  clientWantsUsage: boolean;
  /** A record came after the protocol's proper end: dropped, and counted in stats and logs (R8.13). */
  onDroppedAfterEnd(): void;
}

/** One upstream body the relay may relay raw: its judge, and its records judged `relay` while the relay still holds. */
interface RawBody {
  readonly judge: RecordJudge;
  queued: ObservedRecord[];
}

type Mode = 'holding' | 'raw' | 'encode';

/** Where output goes before `start`: one function for every instance, not a closure each. */
const writeNothing = (): void => undefined;

/** Events after which raw output stops: what follows is another body's, or the encoder's error ending. */
const SPLICES: ReadonlySet<TurnEvent['type']> = new Set(['recovery-start', 'fallback', 'continuation-start', 'error']);

const SEQUENCE_NUMBER = /"sequence_number"\s*:\s*(\d+)/;
const CR = 13;

/**
 * The SSE a streaming client gets (R8.2, R8.13): whole records core's framer
 * read, judged by their events, or the adapter's encoder from a splice on.
 *
 * - Holding: runTurn reports each body's records (observeSseRecords) before
 *   it hands their events over. They wait here until the first event the
 *   client must see: an attempt retried before that leaves no byte with the
 *   client (a new body replaces the old one's records).
 * - Raw: the first visible event came from a body chosen for raw output
 *   (choose-body-output.ts): its records go out from then on as they are
 *   reported, in order, each once — only whole records, so a cut never
 *   leaves half of one with the client. Each is judged first
 *   (judge-sse-records.ts): an in-stream error is never relayed; after the
 *   protocol's proper end nothing is. The encoder observes the events of
 *   exactly the records written (state only, nothing rendered).
 * - Splice: at `recovery-start`, a final `error` or a new body, raw output
 *   stops; the encoder continues the same response from what the client has
 *   (no second `message_start` / `response.created`, the next block and
 *   output indices, Responses `sequence_number`s after the last one relayed).
 * - Encode: a turn whose first visible event is not a raw body's (a
 *   heartbeat while retrying) is encoded throughout.
 *
 * The observer's callbacks run inside core's decoder: a failure there would
 * look like the upstream's, so it is kept and thrown to the relay's own loop.
 */
export class SseRecordRelay {
  readonly #options: SseRecordRelayOptions;
  /** Made on first use, after the first record went out: not on the first-byte path. */
  #encoderMade: SpliceableSseEncoder | undefined;
  #write: (chunk: string) => void = writeNothing;
  #mode: Mode = 'holding';
  /** Holding: the latest body chosen for raw output; raw: the body being relayed. */
  #body: RawBody | undefined;
  /** Responses: the last `sequence_number` relayed, where a splice continues. */
  #lastSequenceNumber: number | undefined;
  /** Raw: runTurn's finish, for the encoder if the relayed records never carried the terminal frame. */
  #finish: TurnEvent | undefined;
  #failure: { error: unknown } | undefined;
  /** The protocol's end (a relayed end record, or the encoded final event), held for the turn's comment (R12.4). */
  #heldEnd = '';
  /** The latest body speaks another protocol family (R11.1): its response id is not one the client's protocol knows. */
  #foreignBody = false;

  constructor(options: SseRecordRelayOptions) {
    this.#options = options;
  }

  get #encoder(): SpliceableSseEncoder {
    return (this.#encoderMade ??= createSseTextEncoder(this.#options.protocol));
  }

  /** runTurn's `observeSseRecords`: asked once per successful upstream body, before it is read. */
  observeBody(info: ResponseBodyInfo): SseRecordObserver<DecodedStreamEvent> | undefined {
    // The relayed body is over: what follows is the encoder's.
    if (this.#mode === 'raw') this.#splice();
    this.#foreignBody = info.protocol !== undefined && info.protocol !== this.#options.protocol;
    if (this.#mode !== 'holding' || chooseBodyOutput(info, this.#options.protocol) === 'encode') {
      this.#body = undefined;
      return undefined;
    }
    const body: RawBody = { judge: createRecordJudge(this.#options.protocol, this.#options.clientWantsUsage), queued: [] };
    this.#body = body;
    return { onRecord: (record) => this.#onRecord(body, record) };
  }

  /** The first event the client must see, after the ones held back before it; `write` queues output. */
  start(held: readonly TurnEvent[], write: (chunk: string) => void): void {
    this.#throwFailure();
    this.#write = write;
    const body = this.#body;
    const first = held[held.length - 1];
    if (body !== undefined && first !== undefined && first.type !== 'heartbeat') {
      this.#mode = 'raw';
      const queued = body.queued;
      body.queued = [];
      // One write for what is at hand: the first records usually came in one network read.
      const text = queued.map((record) => this.#textOrHeld(record)).join('');
      if (text !== '') write(text);
      for (const record of queued) this.#follow(record);
      return;
    }
    this.#mode = 'encode';
    this.#body = undefined;
    for (const event of held) this.#writeEncoded(event);
  }

  /** runTurn's next event: raw output stands for content events already; a recovery, a fail-over, a continuation or a final error splices. */
  event(event: TurnEvent): void {
    this.#throwFailure();
    if (this.#mode === 'raw') {
      if (!SPLICES.has(event.type)) {
        if (event.type === 'finish') this.#finish = event;
        return;
      }
      this.#splice();
    }
    this.#writeEncoded(event);
  }

  /**
   * The turn ended: the protocol's proper end, supplied where the upstream left it out (R8.13), with
   * the turn's `comment` just before it (R12.4).
   */
  finish(comment = ''): void {
    this.#throwFailure();
    if (this.#mode === 'raw') {
      const judge = this.#body!.judge;
      if (judge.ended) {
        const end = comment + (this.#heldEnd === '' ? judge.missingEnd() : this.#heldEnd);
        if (end !== '') this.#write(end);
        return;
      }
      this.#splice();
      if (this.#finish !== undefined) this.#writeEncoded(this.#finish);
    }
    const tail = beforeLastRecord(this.#heldEnd + this.#encoder.finish(), comment);
    if (tail !== '') this.#write(tail);
  }

  #onRecord(body: RawBody, record: ObservedRecord): void {
    if (body !== this.#body || this.#failure !== undefined) return;
    try {
      switch (body.judge.judge(record)) {
        case 'relay':
          if (this.#mode === 'raw') this.#relayRecord(record);
          else body.queued.push(record);
          return;
        case 'after-end':
          this.#options.onDroppedAfterEnd();
          return;
        case 'omit':
        case 'error':
          return;
      }
    } catch (error) {
      this.#failure = { error };
    }
  }

  #relayRecord(record: ObservedRecord): void {
    const text = this.#textOrHeld(record);
    if (text !== '') this.#write(text);
    this.#follow(record);
  }

  /** A record's text to write now; '' for the protocol's end record, which waits for the turn's end (R12.4). */
  #textOrHeld(record: ObservedRecord): string {
    if (!isProtocolEnd(this.#options.protocol, record)) return this.#textOf(record);
    this.#heldEnd = this.#textOf(record);
    return '';
  }

  /**
   * A record's text as the client gets it. One closed by a bare CR gets an LF after it: a client's
   * parser holds that CR as the possible first half of a CRLF until the next byte (eventsource-parser
   * loses it at the end of the stream); as a CRLF — the same blank line — it is read at once.
   */
  #textOf(record: ObservedRecord): string {
    const { raw } = record;
    return raw.charCodeAt(raw.length - 1) === CR ? `${raw}\n` : raw;
  }

  /**
   * The encoder follows what the client has, after the write (the first byte does not wait for it).
   * Usage is left out: the turn's own usage event comes before the encoder's end, and Chat's usage
   * chunk is the client's to ask for.
   */
  #follow(record: ObservedRecord): void {
    if (this.#options.protocol === 'responses') {
      const sequence = SEQUENCE_NUMBER.exec(record.data);
      if (sequence !== null) this.#lastSequenceNumber = Number(sequence[1]);
    }
    const encoder = this.#encoder;
    for (const event of record.events) if (event.type !== 'usage' && event.type !== 'stream-end') encoder.observe(event);
  }

  #splice(): void {
    this.#mode = 'encode';
    this.#body = undefined;
    if (this.#lastSequenceNumber !== undefined) this.#encoder.continueSequenceAt?.(this.#lastSequenceNumber + 1);
  }

  #writeEncoded(event: TurnEvent): void {
    // R11.1: a response id of another family's is no id the client's protocol knows (a Responses client could not chain it); the encoder makes one.
    const text = this.#encoder.encodeEvent(event.type === 'response-metadata' && this.#foreignBody ? { ...event, responseId: undefined } : event);
    // The final event is the turn's last: its records wait for the turn's comment (R12.4).
    if (event.type === 'finish' || event.type === 'error') this.#heldEnd += text;
    else if (text !== '') this.#write(text);
  }

  #throwFailure(): void {
    if (this.#failure !== undefined) throw this.#failure.error;
  }
}
