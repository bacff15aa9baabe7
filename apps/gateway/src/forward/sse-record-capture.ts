import { SseRecordReader, type SseRecordHandler } from './sse-record-reader.js';
import type { UpstreamObjectCapture } from './upstream-object-capture.js';
import type { Json } from '../assemble/json-record.js';


/**
 * The byte-tap half of every UpstreamObjectCapture: each successful upstream
 * body gets its own SseRecordReader, fed as the decoder reads (R8.6). A
 * subclass says what a body's records go to and builds the client's body.
 */
export abstract class SseRecordCapture implements UpstreamObjectCapture {
  #reader: SseRecordReader | undefined;

  onBodyStart(): void {
    this.#reader = new SseRecordReader(this.startBody());
  }

  onDrained(): void {
    // Records are read as bytes arrive; nothing waits for the decoder.
  }

  onBytes(chunk: Uint8Array): void {
    this.#reader?.push(chunk);
  }

  abstract bodyFor(rendered: Json, recovered: boolean): Json;

  /** A new body starts: where its records go (earlier bodies' state is the subclass's to keep or drop). */
  protected abstract startBody(): SseRecordHandler;

  /** The last body is over; `flushLastRecord`: a last record with no blank line after it still counts. */
  protected stopReading(flushLastRecord: boolean): void {
    if (flushLastRecord) this.#reader?.flush();
    this.#reader = undefined;
  }
}
