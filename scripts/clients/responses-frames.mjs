// OpenAI Responses SSE as the API sends it (sequences from
// the wire-formats reference §3.2, a real gpt-5.1-codex-max recording):
// response.created, response.in_progress, per item output_item.added → parts/deltas →
// output_item.done, then response.completed with usage. No [DONE].
import { chunks, fakeId, sendJsonReply, startSse } from './sse.mjs';

const MODEL = 'gpt-5-codex';

function responseObject(id, status, output) {
  const done = status === 'completed';
  return {
    id, object: 'response', created_at: Math.floor(Date.now() / 1000), status, error: null, incomplete_details: null,
    model: MODEL, output, parallel_tool_calls: true, store: false, tool_choice: 'auto', tools: [],
    usage: done ? { input_tokens: 42, input_tokens_details: { cached_tokens: 0 }, output_tokens: 64, output_tokens_details: { reasoning_tokens: 16 }, total_tokens: 106 } : null,
  };
}

function makeWriter(res) {
  let sequence = 0;
  return (type, fields) => {
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence, ...fields })}\n\n`);
    sequence += 1;
  };
}

function writeReasoning(emit, output_index, part) {
  const item_id = fakeId('rs_');
  emit('response.output_item.added', { output_index, item: { id: item_id, type: 'reasoning', summary: [] } });
  emit('response.reasoning_summary_part.added', { item_id, output_index, summary_index: 0, part: { type: 'summary_text', text: '' } });
  for (const delta of chunks(part.reasoning)) emit('response.reasoning_summary_text.delta', { item_id, output_index, summary_index: 0, delta });
  if (part.open) return null;
  const summaryPart = { type: 'summary_text', text: part.reasoning };
  emit('response.reasoning_summary_text.done', { item_id, output_index, summary_index: 0, text: part.reasoning });
  emit('response.reasoning_summary_part.done', { item_id, output_index, summary_index: 0, part: summaryPart });
  const item = { id: item_id, type: 'reasoning', summary: [summaryPart] };
  emit('response.output_item.done', { output_index, item });
  return item;
}

function writeText(emit, output_index, part) {
  const item_id = fakeId('msg_');
  emit('response.output_item.added', { output_index, item: { id: item_id, type: 'message', status: 'in_progress', content: [], role: 'assistant' } });
  emit('response.content_part.added', { item_id, output_index, content_index: 0, part: { type: 'output_text', annotations: [], logprobs: [], text: '' } });
  for (const delta of chunks(part.text)) emit('response.output_text.delta', { item_id, output_index, content_index: 0, delta, logprobs: [] });
  if (part.open) return null;
  const content = { type: 'output_text', annotations: [], logprobs: [], text: part.text };
  emit('response.output_text.done', { item_id, output_index, content_index: 0, text: part.text, logprobs: [] });
  emit('response.content_part.done', { item_id, output_index, content_index: 0, part: content });
  const item = { id: item_id, type: 'message', status: 'completed', content: [content], role: 'assistant' };
  emit('response.output_item.done', { output_index, item });
  return item;
}

function writeFunctionCall(emit, output_index, { tool }) {
  const item_id = fakeId('fc_');
  const base = { id: item_id, type: 'function_call', call_id: tool.call_id, name: tool.name };
  emit('response.output_item.added', { output_index, item: { ...base, status: 'in_progress', arguments: '' } });
  for (const delta of chunks(tool.arguments, 16)) emit('response.function_call_arguments.delta', { item_id, output_index, delta });
  emit('response.function_call_arguments.done', { item_id, output_index, arguments: tool.arguments });
  const item = { ...base, status: 'completed', arguments: tool.arguments };
  emit('response.output_item.done', { output_index, item });
  return item;
}

function writePart(emit, index, part) {
  if (part.reasoning !== undefined) return writeReasoning(emit, index, part);
  if (part.tool) return writeFunctionCall(emit, index, part);
  return writeText(emit, index, part);
}

/** Streams a reply; `cut` ends the body cleanly without response.completed (the R4 trigger). */
export function streamResponse(res, { parts, cut = false }) {
  startSse(res, 'x-request-id', fakeId('req_'));
  const emit = makeWriter(res);
  const id = fakeId('resp_');
  emit('response.created', { response: responseObject(id, 'in_progress', []) });
  emit('response.in_progress', { response: responseObject(id, 'in_progress', []) });
  const output = parts.map((part, index) => writePart(emit, index, part)).filter(Boolean);
  if (!cut) emit('response.completed', { response: responseObject(id, 'completed', output) });
  res.end();
}

function jsonItem(part) {
  if (part.reasoning !== undefined) return { id: fakeId('rs_'), type: 'reasoning', summary: [{ type: 'summary_text', text: part.reasoning }] };
  if (part.tool) return { id: fakeId('fc_'), type: 'function_call', status: 'completed', ...part.tool };
  return { id: fakeId('msg_'), type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', annotations: [], logprobs: [], text: part.text }] };
}

/** A non-streaming Responses body for the same reply script; `cut` → half the JSON, then EOF. */
export function sendResponseJson(res, { parts, cut = false }) {
  const body = responseObject(fakeId('resp_'), 'completed', parts.map(jsonItem));
  sendJsonReply(res, body, cut, 'x-request-id', fakeId('req_'));
}

/** The function_call_output items of a Responses body whose output includes `needle`. */
export function hasFunctionOutput(body, needle) {
  const input = Array.isArray(body?.input) ? body.input : [];
  return input.some((item) => item?.type === 'function_call_output' && JSON.stringify(item.output ?? '').includes(needle));
}
