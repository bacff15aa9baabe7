/** One SSE record as it goes on the wire. */
export interface SseRecord {
  /** The `event:` line; Chat Completions never sends one (openai-node `src/core/streaming.ts`). */
  event: string | undefined;
  /** The `data:` payload, already serialized. */
  data: string;
}

/** Serializes a JSON payload as a record; `event` is also the JSON `type` for Messages/Responses. */
export function makeRecord(event: string | undefined, payload: unknown): SseRecord {
  return { event, data: JSON.stringify(payload) };
}

/** `event: x\ndata: {…}\n\n` (or just `data: …\n\n`), one record per chunk as real servers flush them. */
export function encodeRecord(record: SseRecord): string {
  const eventLine = record.event === undefined ? '' : `event: ${record.event}\n`;
  return `${eventLine}data: ${record.data}\n\n`;
}

/** What a protocol renderer produces for a streamed reply. */
export interface RenderedStream {
  /** Content records, in order (start frames, deltas, block stops). */
  content: SseRecord[];
  /** Terminal records (finish/usage/[DONE], message_delta+message_stop, response.completed…). */
  terminal: SseRecord[];
}

/** Values every renderer needs for one reply; all deterministic. */
export interface RenderContext {
  model: string;
  /** Per-upstream serial number, used to build ids that differ between replies. */
  serial: number;
  /** Unix seconds used for `created`/`created_at` (taken from a real recording). */
  createdAt: number;
}

/** Deterministic id: `prefix` + serial + padding, shaped like real ids. */
export function makeId(prefix: string, context: RenderContext, index = 0): string {
  const body = `${context.serial.toString(36)}x${index.toString(36)}`;
  return `${prefix}${body.padStart(24, '0')}`;
}
