import { MessagesMessageAccumulator } from '../assemble/accumulate-messages-message.js';
import { SseRecordCapture } from './sse-record-capture.js';
import type { SseRecordHandler } from './sse-record-reader.js';
import { isRecord, type Json } from '../assemble/json-record.js';

/**
 * Messages JSON as @anthropic-ai/sdk's `finalMessage()` builds it from the
 * same upstream stream (decision 0235): the last upstream body's events go
 * through the SDK's accumulator (MessagesMessageAccumulator), so
 * `stop_sequence`, `container`, citations, server tool blocks, extra block
 * fields and the upstream's whole `usage` reach the client. Only the last
 * body is kept: an earlier one was retried or is segment 1 of a recovery.
 */
export class MessagesMessageCapture extends SseRecordCapture {
  #body: MessagesMessageAccumulator | undefined;

  protected startBody(): SseRecordHandler {
    const body = new MessagesMessageAccumulator();
    this.#body = body;
    return (event, data) => {
      if (event !== 'error' && event !== 'ping') addEvent(body, data);
    };
  }

  /**
   * The SDK's message; after a recovery, segment 2's message (its id, stop
   * fields, container) with the turn's content as rendered — segment 1's
   * thinking, then segment 2's blocks — and the turn's usage (R5).
   */
  bodyFor(rendered: Json, recovered: boolean): Json {
    // No flush: a last record with no blank line is dropped, by the decoder and the SDK alike.
    this.stopReading(false);
    const body = this.#body;
    if (body === undefined || !body.started) return rendered;
    const message = body.finalize();
    return recovered ? { ...message, content: rendered.content, usage: rendered.usage } : message;
  }
}

function addEvent(body: MessagesMessageAccumulator, data: string): void {
  let event: unknown;
  try {
    event = JSON.parse(data);
  } catch {
    // Not JSON: the decoder reports it; nothing to keep.
    return;
  }
  if (isRecord(event)) body.add(event);
}
