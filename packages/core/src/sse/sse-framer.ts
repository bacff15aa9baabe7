/** Where a framer hands each complete SSE record (event name, data). */
export interface SseRecordSink {
  pushRecord(eventName: string | undefined, data: string): void;
}

const LF = 10;
const CR = 13;
const SPACE = 32;

/**
 * Text → SSE records, framing exactly as eventsource-parser 3.1.1 does
 * (same line-ending rules — LF, CR, CRLF, a CR at the end of a chunk waiting
 * for the next — same `data`/`event` field handling, same first-chunk
 * BOM rule, same feed-by-feed timing), checked by a fast-check property test
 * against it on random splits (`sse-framer.conformance.test.ts` in
 * adapter-chat). `id`, `retry` and comments carry nothing our decoders read
 * and are skipped.
 *
 * Why our own (decision 0202): eventsource-parser builds its parser from
 * closures created per stream; V8 specialises optimised code on them, and a
 * new stream (or a GC that collects the old one) throws that code away, so
 * each stream ran its hot loop, with our decoder inlined into it, largely
 * unoptimised (`--trace-deopt`: "weak objects", "code dependencies"). A class
 * keeps one optimised copy for every stream, and hands records over as two
 * strings instead of an object per record.
 */
export class SseFramer {
  /** Keeps this class's hidden class alive across a full GC between streams (decision 0202). */
  static readonly #shapeAnchor = new SseFramer({ pushRecord: () => undefined });
  readonly #sink: SseRecordSink;
  /** The incomplete last line(s) of what was fed (eventsource-parser's pending fragments, joined). */
  #pending = '';
  #isFirstChunk = true;
  #data = '';
  #dataLines = 0;
  #eventType: string | undefined;

  constructor(sink: SseRecordSink) {
    this.#sink = sink;
  }

  feed(text: string): void {
    let chunk = text;
    if (this.#isFirstChunk) {
      this.#isFirstChunk = false;
      // eventsource-parser drops these three code units at the start (a UTF-8 BOM read as Latin-1).
      if (chunk.charCodeAt(0) === 239 && chunk.charCodeAt(1) === 187 && chunk.charCodeAt(2) === 191) chunk = chunk.slice(3);
    }
    if (this.#pending === '') {
      this.#pending = this.#processLines(chunk);
      return;
    }
    if (chunk.indexOf('\n') === -1 && chunk.indexOf('\r') === -1) {
      this.#pending += chunk;
      return;
    }
    const input = this.#pending + chunk;
    this.#pending = '';
    this.#pending = this.#processLines(input);
  }

  /**
   * The input has ended. A CR held back as the possible first half of a CRLF
   * is a line end after all (WHATWG event-stream: CR, LF and CRLF each end a
   * line), so the line or blank line it closes is framed now; without this a
   * bare-CR stream lost its last record (issue 18). What is left after that —
   * a record without its blank line — stays with the caller's last-record rule.
   */
  end(): void {
    const pending = this.#pending;
    if (pending.charCodeAt(pending.length - 1) !== CR) return;
    // The held CR followed by LF is one line end, exactly what the lone CR stands for.
    this.feed('\n');
  }

  /** Frames every complete line of `chunk`; returns what is left of it. */
  #processLines(chunk: string): string {
    let searchIndex = 0;
    if (chunk.indexOf('\r') === -1) {
      let lfIndex = chunk.indexOf('\n');
      while (lfIndex !== -1) {
        if (searchIndex === lfIndex) {
          this.#dispatch();
        } else if (isDataPrefix(chunk, searchIndex)) {
          const valueStart = chunk.charCodeAt(searchIndex + 5) === SPACE ? searchIndex + 6 : searchIndex + 5;
          const value = chunk.slice(valueStart, lfIndex);
          if (this.#dataLines === 0 && chunk.charCodeAt(lfIndex + 1) === LF) {
            // The common one-line record: dispatched at once, its blank line consumed.
            const eventType = this.#eventType;
            this.#eventType = undefined;
            this.#data = '';
            this.#sink.pushRecord(eventType, value);
            searchIndex = lfIndex + 2;
            lfIndex = chunk.indexOf('\n', searchIndex);
            continue;
          }
          this.#appendData(value);
        } else if (isEventPrefix(chunk, searchIndex)) {
          this.#eventType = chunk.slice(chunk.charCodeAt(searchIndex + 6) === SPACE ? searchIndex + 7 : searchIndex + 6, lfIndex) || undefined;
        } else {
          this.#parseLine(chunk, searchIndex, lfIndex);
        }
        searchIndex = lfIndex + 1;
        lfIndex = chunk.indexOf('\n', searchIndex);
      }
      return chunk.slice(searchIndex);
    }
    while (searchIndex < chunk.length) {
      const crIndex = chunk.indexOf('\r', searchIndex);
      const lfIndex = chunk.indexOf('\n', searchIndex);
      let lineEnd = -1;
      if (crIndex !== -1 && lfIndex !== -1) lineEnd = crIndex < lfIndex ? crIndex : lfIndex;
      // A CR as the last character may be the first half of a CRLF: wait for the next chunk.
      else if (crIndex !== -1) lineEnd = crIndex === chunk.length - 1 ? -1 : crIndex;
      else if (lfIndex !== -1) lineEnd = lfIndex;
      if (lineEnd === -1) break;
      this.#parseLine(chunk, searchIndex, lineEnd);
      searchIndex = lineEnd + 1;
      if (chunk.charCodeAt(searchIndex - 1) === CR && chunk.charCodeAt(searchIndex) === LF) searchIndex += 1;
    }
    return chunk.slice(searchIndex);
  }

  #parseLine(chunk: string, start: number, end: number): void {
    if (start === end) {
      this.#dispatch();
      return;
    }
    if (isDataPrefix(chunk, start)) {
      this.#appendData(chunk.slice(chunk.charCodeAt(start + 5) === SPACE ? start + 6 : start + 5, end));
      return;
    }
    if (isEventPrefix(chunk, start)) {
      this.#eventType = chunk.slice(chunk.charCodeAt(start + 6) === SPACE ? start + 7 : start + 6, end) || undefined;
      return;
    }
    // Comments (`:`), `id:` and `retry:` carry nothing a decoder reads.
    if (chunk.charCodeAt(start) === 58) return;
    const line = chunk.slice(start, end);
    const separator = line.indexOf(':');
    const field = separator === -1 ? line : line.slice(0, separator);
    if (field !== 'data' && field !== 'event') return;
    const value = separator === -1 ? '' : line.slice(separator + (line.charCodeAt(separator + 1) === SPACE ? 2 : 1));
    if (field === 'data') this.#appendData(value);
    else this.#eventType = value || undefined;
  }

  #appendData(value: string): void {
    this.#data = this.#dataLines === 0 ? value : `${this.#data}\n${value}`;
    this.#dataLines += 1;
  }

  #dispatch(): void {
    const dataLines = this.#dataLines;
    const data = this.#data;
    const eventType = this.#eventType;
    this.#data = '';
    this.#dataLines = 0;
    this.#eventType = undefined;
    if (dataLines > 0) this.#sink.pushRecord(eventType, data);
  }
}

function isDataPrefix(chunk: string, index: number): boolean {
  return (
    chunk.charCodeAt(index) === 100 &&
    chunk.charCodeAt(index + 1) === 97 &&
    chunk.charCodeAt(index + 2) === 116 &&
    chunk.charCodeAt(index + 3) === 97 &&
    chunk.charCodeAt(index + 4) === 58
  );
}

function isEventPrefix(chunk: string, index: number): boolean {
  return (
    chunk.charCodeAt(index) === 101 &&
    chunk.charCodeAt(index + 1) === 118 &&
    chunk.charCodeAt(index + 2) === 101 &&
    chunk.charCodeAt(index + 3) === 110 &&
    chunk.charCodeAt(index + 4) === 116 &&
    chunk.charCodeAt(index + 5) === 58
  );
}
