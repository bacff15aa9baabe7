import { MessagesMessageAccumulator } from '../assemble/accumulate-messages-message.js';
import { SseRecordCapture, type SseRecordHandler } from './sse-record-capture.js';
import { isRecord, parseJsonRecord, type Json } from '../assemble/json-record.js';

/**
 * Messages JSON as @anthropic-ai/sdk's `finalMessage()` builds it from the
 * same upstream stream (decision 0235): the last upstream body's events go
 * through the SDK's accumulator (MessagesMessageAccumulator), so
 * `stop_sequence`, `container`, citations, server tool blocks, extra block
 * fields and the upstream's whole `usage` reach the client. Only the last
 * body is kept: an earlier one was retried or is segment 1 of a recovery.
 */
export class MessagesMessageCapture extends SseRecordCapture {
  constructor(onDroppedAfterEnd: () => void = () => undefined) {
    super('messages', onDroppedAfterEnd);
  }

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
    const body = this.#body;
    if (body === undefined || this.broken || !body.started) return rendered;
    const message = body.finalize();
    if (!recovered) return message;
    return { ...message, content: withSegmentTwoTextFields(rendered.content, message.content), usage: rendered.usage };
  }
}

/**
 * After a recovery every text block is segment 2's (R4.1: a segment with text is never recovered),
 * so the rendered text blocks take the extra fields (citations) of segment 2's own text blocks, in
 * order, when the counts agree. Segment 2's server tool blocks stay out: the rendered content is
 * what the turn handed over (R4.5 keeps its tool calls from the host).
 */
function withSegmentTwoTextFields(rendered: unknown, upstream: unknown): unknown {
  if (!Array.isArray(rendered) || !Array.isArray(upstream)) return rendered;
  const upstreamTexts = upstream.filter((block): block is Json => isRecord(block) && block.type === 'text');
  const renderedTexts = rendered.filter((block): block is Json => isRecord(block) && block.type === 'text');
  if (upstreamTexts.length !== renderedTexts.length) return rendered;
  let next = 0;
  return rendered.map((block: unknown) => (isRecord(block) && block.type === 'text' ? { ...upstreamTexts[next++], ...block } : block));
}

function addEvent(body: MessagesMessageAccumulator, data: string): void {
  const event = parseJsonRecord(data);
  if (event !== undefined) body.add(event);
}
