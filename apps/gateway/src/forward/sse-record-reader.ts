import { PendingSseBytes } from './pending-sse-bytes.js';

/** One dispatched SSE record: its `event` field (if any) and its joined `data` lines. */
export type SseRecordHandler = (event: string | undefined, data: string) => void;

const LINE_END = /\r\n|\n|\r/;

/**
 * An upstream body's SSE records, read as its bytes arrive, for the captures
 * that keep the upstream's own object for a JSON answer (R8.6). Linear in the
 * body: only new bytes are scanned for a record end, each byte is decoded
 * once, and nothing but the incomplete last record is kept (issue 16). Whole
 * records end on a line terminator, never inside a UTF-8 sequence, so the
 * bytes taken decode on their own. Lines and fields as WHATWG "server-sent
 * events" §9.2.6: `data:` lines joined with LF, one leading space dropped.
 */
export class SseRecordReader {
  readonly #onRecord: SseRecordHandler;
  #pending = new PendingSseBytes();
  #event: string | undefined;
  #data: string[] = [];

  constructor(onRecord: SseRecordHandler) {
    this.#onRecord = onRecord;
  }

  push(chunk: Uint8Array): void {
    this.#pending.push(chunk);
    const end = this.#pending.lastRecordEnd;
    if (end > 0) this.#readLines(this.#pending.take(end));
  }

  /** The body ended: a last record with no blank line after it is dispatched too (openai-node flushes its decoder). */
  flush(): void {
    if (this.#pending.size > 0) this.#readLines(this.#pending.take(this.#pending.size));
    this.#dispatch();
  }

  #readLines(pieces: Uint8Array[]): void {
    // Pieces may split a UTF-8 sequence; the whole records they make up cannot.
    const bytes = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
    for (const line of text.split(LINE_END)) {
      if (line === '') this.#dispatch();
      else this.#readField(line);
    }
  }

  #readField(line: string): void {
    const colon = line.indexOf(':');
    if (colon === 0) return; // a comment (`: keep-alive`)
    const name = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(line.charCodeAt(colon + 1) === 0x20 ? colon + 2 : colon + 1);
    if (name === 'data') this.#data.push(value);
    else if (name === 'event') this.#event = value;
  }

  #dispatch(): void {
    const data = this.#data;
    const event = this.#event;
    this.#event = undefined;
    if (data.length === 0) return;
    this.#data = [];
    this.#onRecord(event, data.length === 1 ? data[0]! : data.join('\n'));
  }
}
