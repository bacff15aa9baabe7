import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** The three line ends an SSE stream may use (WHATWG "server-sent events" §9.2.6). */
export type LineEnd = 'lf' | 'cr' | 'crlf';
export const LINE_ENDS: readonly LineEnd[] = ['lf', 'cr', 'crlf'];
const EOL: Record<LineEnd, string> = { lf: '\n', cr: '\r', crlf: '\r\n' };

/** One SSE record: an optional `event:` line, one `data:` line, then the blank line, all with `eol`. */
export function sseRecord(data: string, eol: LineEnd = 'lf', event?: string): string {
  const end = EOL[eol];
  return `${event === undefined ? '' : `event: ${event}${end}`}data: ${data}${end}${end}`;
}

/** Chat Completions chunks (openai wire-formats §1), as real servers send them. */
export const chat = {
  chunk: (fields: Record<string, unknown>, eol: LineEnd = 'lf'): string =>
    sseRecord(JSON.stringify({ id: 'chatcmpl-f', object: 'chat.completion.chunk', created: 1, model: 'm', ...fields }), eol),
  role: (eol: LineEnd = 'lf'): string => chat.chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }, eol),
  text: (content: string, eol: LineEnd = 'lf'): string => chat.chunk({ choices: [{ index: 0, delta: { content }, finish_reason: null }] }, eol),
  reasoning: (content: string, eol: LineEnd = 'lf'): string => chat.chunk({ choices: [{ index: 0, delta: { reasoning_content: content }, finish_reason: null }] }, eol),
  finish: (eol: LineEnd = 'lf', reason = 'stop'): string => chat.chunk({ choices: [{ index: 0, delta: {}, finish_reason: reason }] }, eol),
  usage: (eol: LineEnd = 'lf'): string => chat.chunk({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } }, eol),
  done: (eol: LineEnd = 'lf'): string => sseRecord('[DONE]', eol),
};

/** Anthropic Messages events (`event:` + `data:`), as the API sends them. */
export const messages = {
  event: (type: string, fields: Record<string, unknown>, eol: LineEnd = 'lf'): string => sseRecord(JSON.stringify({ type, ...fields }), eol, type),
  start: (eol: LineEnd = 'lf', id = 'msg_f'): string =>
    messages.event('message_start', { message: { id, type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 3, output_tokens: 1 } } }, eol),
  blockStart: (index: number, kind: 'text' | 'thinking', eol: LineEnd = 'lf'): string =>
    messages.event('content_block_start', { index, content_block: kind === 'text' ? { type: 'text', text: '' } : { type: 'thinking', thinking: '', signature: '' } }, eol),
  text: (index: number, text: string, eol: LineEnd = 'lf'): string => messages.event('content_block_delta', { index, delta: { type: 'text_delta', text } }, eol),
  thinking: (index: number, thinking: string, eol: LineEnd = 'lf'): string => messages.event('content_block_delta', { index, delta: { type: 'thinking_delta', thinking } }, eol),
  blockStop: (index: number, eol: LineEnd = 'lf'): string => messages.event('content_block_stop', { index }, eol),
  delta: (eol: LineEnd = 'lf', stopReason = 'end_turn'): string => messages.event('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 2 } }, eol),
  stop: (eol: LineEnd = 'lf'): string => messages.event('message_stop', {}, eol),
};

/** OpenAI Responses events (`event:` + `data:` with a `sequence_number`), as the API sends them. */
export class ResponsesWire {
  #sequence = 0;
  constructor(private readonly eol: LineEnd = 'lf') {}

  event(type: string, fields: Record<string, unknown>): string {
    return sseRecord(JSON.stringify({ type, sequence_number: this.#sequence++, ...fields }), this.eol, type);
  }

  created(): string {
    return this.event('response.created', { response: { id: 'resp_f', object: 'response', created_at: 1, model: 'm', status: 'in_progress', output: [] } });
  }

  messageAdded(outputIndex: number, id: string): string {
    return (
      this.event('response.output_item.added', { output_index: outputIndex, item: { id, type: 'message', status: 'in_progress', role: 'assistant', content: [] } }) +
      this.event('response.content_part.added', { item_id: id, output_index: outputIndex, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } })
    );
  }

  reasoningAdded(outputIndex: number, id: string): string {
    return this.event('response.output_item.added', { output_index: outputIndex, item: { id, type: 'reasoning', summary: [] } });
  }

  reasoning(outputIndex: number, id: string, delta: string): string {
    return this.event('response.reasoning_summary_text.delta', { item_id: id, output_index: outputIndex, summary_index: 0, delta });
  }

  text(outputIndex: number, id: string, delta: string): string {
    return this.event('response.output_text.delta', { item_id: id, output_index: outputIndex, content_index: 0, delta });
  }

  messageDone(outputIndex: number, id: string, text: string): string {
    const part = { type: 'output_text', text, annotations: [] };
    return (
      this.event('response.output_text.done', { item_id: id, output_index: outputIndex, content_index: 0, text }) +
      this.event('response.content_part.done', { item_id: id, output_index: outputIndex, content_index: 0, part }) +
      this.event('response.output_item.done', { output_index: outputIndex, item: { id, type: 'message', status: 'completed', role: 'assistant', content: [part] } })
    );
  }

  completed(): string {
    return this.event('response.completed', {
      response: { id: 'resp_f', object: 'response', created_at: 1, model: 'm', status: 'completed', output: [], usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5 } },
    });
  }
}

/** The client's reading of an SSE body with an independent parser (eventsource-parser), every record in order. */
export function parseSseBody(text: string): EventSourceMessage[] {
  const records: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (record) => records.push(record) });
  parser.feed(text);
  // The end of the body settles a CR held as the possible first half of a CRLF.
  parser.reset({ consume: true });
  return records;
}
