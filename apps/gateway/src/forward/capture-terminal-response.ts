import { SseRecordCapture, type SseRecordHandler } from './sse-record-capture.js';
import { isRecord, parseJsonRecord, type Json } from '../assemble/json-record.js';

const TERMINAL_TYPES = new Set(['response.completed', 'response.incomplete']);

/**
 * Non-streaming Responses requests still stream upstream (so R4 recovery
 * works); R8.6 wants the client's JSON to be "the JSON the upstream itself
 * would have sent — for Responses, the `response.completed` object as it
 * came". This capture keeps, per upstream body, the `response` object of its
 * terminal record (every field: tools, instructions, metadata, store,
 * annotations, the upstream's item ids), and nothing else of the stream.
 */
export class TerminalResponseCapture extends SseRecordCapture {
  constructor(onDroppedAfterEnd: () => void = () => undefined) {
    super('responses', onDroppedAfterEnd);
  }

  /** One entry per successful body, in order: its terminal `response` object, if one arrived. */
  readonly perBody: Array<Json | undefined> = [];

  protected startBody(): SseRecordHandler {
    this.perBody.push(undefined);
    const at = this.perBody.length - 1;
    return (_event, data) => this.#readRecord(at, data);
  }

  /** The last body's terminal object (segment 2's after a recovery). */
  lastTerminal(): Json | undefined {
    return this.broken ? undefined : this.perBody.at(-1);
  }

  /**
   * The upstream's own object as it came; after a recovery, segment 2's
   * object (its id, fields) with the whole turn's output (segment 1's items,
   * then segment 2's, with the upstream's item ids) and the turn's usage (R5).
   */
  bodyFor(rendered: Json, recovered: boolean): Json {
    const upstream = this.lastTerminal();
    if (upstream === undefined) return rendered;
    if (!recovered) return upstream;
    return { ...upstream, output: rendered.output, ...(rendered.usage === undefined ? {} : { usage: rendered.usage }) };
  }

  #readRecord(at: number, data: string): void {
    // Only a terminal record is parsed: the deltas are the bulk of the stream.
    if (!data.includes('"response.')) return;
    // Not JSON: the decoder reports a bad record; the rendered body is used instead.
    const parsed = parseJsonRecord(data);
    if (parsed === undefined || typeof parsed.type !== 'string' || !TERMINAL_TYPES.has(parsed.type) || !isRecord(parsed.response)) return;
    this.perBody[at] = parsed.response;
  }
}
