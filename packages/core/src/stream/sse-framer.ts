/** Where a framer hands each dispatched SSE record. */
export interface SseRecordSink {
  /**
   * One record: its `event` field (if any) and its `data` lines joined with
   * LF. `raw` is the record's own text — its lines and their terminators,
   * ending with the blank line that dispatched it — when the framer was made
   * with `keepRaw`, otherwise undefined.
   */
  pushRecord(eventName: string | undefined, data: string, raw: string | undefined): void;
}

export interface SseFramerOptions {
  /** Keep each record's own text for the sink (the gateway relays records as they came, R8.13). */
  keepRaw?: boolean;
}

const LF = 10;
const CR = 13;
const COLON = 58;
const SPACE = 32;

/**
 * Text → SSE records, by the WHATWG "server-sent events" parsing rules
 * (§9.2.6), checked against eventsource-parser on random splits
 * (`sse-framer.conformance.test.ts` in adapter-chat):
 * - a line ends with CRLF, LF or CR; a CR at the end of a chunk waits for
 *   the next one, since it may be the first half of a CRLF;
 * - a blank line dispatches the record when it has `data` lines;
 * - `data` lines are joined with LF, one space after the colon is dropped;
 * - comments, `id` and `retry` carry nothing our decoders read and are
 *   skipped (but stay in a kept record's raw text).
 *
 * This is the one SSE grammar of the project: runTurn decodes with it and
 * the gateway relays the raw text of exactly the records it framed (R8.13),
 * so "what the client gets" and "what the core judged" cannot disagree on
 * where a record ends.
 */
export class SseFramer {
  readonly #sink: SseRecordSink;
  readonly #keepRaw: boolean;
  /** The incomplete last line of what was fed (it may end in a CR waiting for its LF). */
  #pending = '';
  /**
   * `#pending` ends in a CR held for its possible LF. A flag, not `#pending.endsWith('\r')`: a long
   * line fed in many chunks is a rope, and reading its last character flattens it — once per chunk,
   * quadratic in the line's length (a 32 MiB record took 16 s and 500 MiB, bench/gateway/relay-record.mjs).
   */
  #pendingEndsInCr = false;
  /** Raw text of the current record's complete lines from earlier chunks (kept only with `keepRaw`). */
  #rawBefore = '';
  #isFirstChunk = true;
  #data = '';
  #dataLines = 0;
  #eventType: string | undefined;

  constructor(sink: SseRecordSink, options: SseFramerOptions = {}) {
    this.#sink = sink;
    this.#keepRaw = options.keepRaw === true;
  }

  feed(text: string): void {
    let chunk = text;
    if (this.#isFirstChunk) {
      this.#isFirstChunk = false;
      // A UTF-8 BOM read as Latin-1 at the very start (eventsource-parser drops it too).
      if (chunk.startsWith('\u00ef\u00bb\u00bf')) chunk = chunk.slice(3);
    }
    // A chunk with no line end only lengthens the pending line: no scan of the joined text, so one
    // long line fed in many chunks stays linear. (Not after a held CR: that CR ends the line.)
    if (this.#pending !== '' && !this.#pendingEndsInCr && chunk.indexOf('\n') === -1 && chunk.indexOf('\r') === -1) {
      this.#pending += chunk;
      return;
    }
    const input = this.#pending + chunk;
    this.#pending = '';
    this.#pendingEndsInCr = false;
    this.#frameLines(input);
  }

  /**
   * The input has ended. A CR held back as the possible first half of a CRLF
   * is a line end after all, so the line or blank line it closes is framed
   * now (a bare-CR stream would otherwise lose its last record). What is left
   * after that — a record without its blank line — is the caller's to
   * finish (decodeSseStream's last-record rule).
   */
  end(): void {
    if (this.#pendingEndsInCr) this.feed('\n');
  }

  /** Frames every complete line of `input` and keeps the rest. */
  #frameLines(input: string): void {
    let lineStart = 0;
    let recordStart = 0;
    let nextLf = input.indexOf('\n');
    let nextCr = input.indexOf('\r');
    for (;;) {
      if (nextLf !== -1 && nextLf < lineStart) nextLf = input.indexOf('\n', lineStart);
      if (nextCr !== -1 && nextCr < lineStart) nextCr = input.indexOf('\r', lineStart);
      const lineEnd = nextCr === -1 ? nextLf : nextLf === -1 ? nextCr : Math.min(nextCr, nextLf);
      if (lineEnd === -1) break;
      // A CR as the last character may be the first half of a CRLF: wait for the next chunk.
      if (lineEnd === input.length - 1 && input.charCodeAt(lineEnd) === CR) break;
      const afterTerminator = input.charCodeAt(lineEnd) === CR && input.charCodeAt(lineEnd + 1) === LF ? lineEnd + 2 : lineEnd + 1;
      if (lineEnd === lineStart) {
        this.#dispatch(input, recordStart, afterTerminator);
        recordStart = afterTerminator;
      } else {
        this.#readField(input, lineStart, lineEnd);
      }
      lineStart = afterTerminator;
    }
    if (this.#keepRaw && lineStart > recordStart) this.#rawBefore += input.slice(recordStart, lineStart);
    this.#pending = input.slice(lineStart);
    this.#pendingEndsInCr = input.charCodeAt(input.length - 1) === CR && lineStart < input.length;
  }

  #readField(line: string, start: number, end: number): void {
    if (line.charCodeAt(start) === COLON) return;
    const colon = line.indexOf(':', start);
    const fieldEnd = colon === -1 || colon > end ? end : colon;
    const field = line.slice(start, fieldEnd);
    if (field !== 'data' && field !== 'event') return;
    let valueStart = fieldEnd === end ? end : fieldEnd + 1;
    if (valueStart < end && line.charCodeAt(valueStart) === SPACE) valueStart += 1;
    const value = line.slice(valueStart, end);
    if (field === 'event') {
      this.#eventType = value === '' ? undefined : value;
      return;
    }
    this.#data = this.#dataLines === 0 ? value : `${this.#data}\n${value}`;
    this.#dataLines += 1;
  }

  /** A blank line: the record so far is dispatched when it has data; either way a new one starts. */
  #dispatch(input: string, recordStart: number, recordEnd: number): void {
    const dataLines = this.#dataLines;
    const data = this.#data;
    const eventType = this.#eventType;
    const raw = this.#keepRaw ? this.#rawBefore + input.slice(recordStart, recordEnd) : undefined;
    this.#rawBefore = '';
    this.#data = '';
    this.#dataLines = 0;
    this.#eventType = undefined;
    if (dataLines > 0) this.#sink.pushRecord(eventType, data, raw);
  }
}
