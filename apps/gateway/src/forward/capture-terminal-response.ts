import { StringDecoder } from 'node:string_decoder';
import type { UpstreamByteTap } from './tap-upstream-bytes.js';

const RECORD_END = /\r\n\r\n|\n\n|\r\r/;
const TERMINAL_TYPES = new Set(['response.completed', 'response.incomplete']);

/**
 * Non-streaming Responses requests still stream upstream (so R4 recovery
 * works); R8.6 wants the client's JSON to be "the JSON the upstream itself
 * would have sent — for Responses, the `response.completed` object as it
 * came". This tap keeps, per upstream body, the `response` object of its
 * terminal record (every field: tools, instructions, metadata, store,
 * annotations, the upstream's item ids), and nothing else of the stream.
 */
export class TerminalResponseCapture implements UpstreamByteTap {
  /** One entry per successful body, in order: its terminal `response` object, if one arrived. */
  readonly perBody: Array<Record<string, unknown> | undefined> = [];
  #decoder = new StringDecoder('utf8');
  #tail = '';

  onBodyStart(): void {
    this.perBody.push(undefined);
    this.#decoder = new StringDecoder('utf8');
    this.#tail = '';
  }

  onDrained(): void {
    // Records are read as bytes arrive; nothing waits for the decoder.
  }

  onBytes(chunk: Uint8Array): void {
    const records = (this.#tail + this.#decoder.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength))).split(RECORD_END);
    this.#tail = records.pop() ?? '';
    for (const record of records) this.#readRecord(record);
  }

  /** The last body's terminal object (segment 2's after a recovery), flushing a last record with no blank line. */
  lastTerminal(): Record<string, unknown> | undefined {
    if (this.#tail !== '') this.#readRecord(this.#tail + this.#decoder.end());
    this.#tail = '';
    return this.perBody.at(-1);
  }

  #readRecord(record: string): void {
    if (!record.includes('"response.')) return;
    const data = record
      .split(/\r\n|\n|\r/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
      .join('\n');
    try {
      const parsed = JSON.parse(data) as { type?: unknown; response?: unknown };
      if (typeof parsed.type === 'string' && TERMINAL_TYPES.has(parsed.type) && typeof parsed.response === 'object' && parsed.response !== null) {
        this.perBody[this.perBody.length - 1] = parsed.response as Record<string, unknown>;
      }
    } catch {
      // Not JSON: the decoder reports a bad record; the rendered body is used instead.
    }
  }
}
