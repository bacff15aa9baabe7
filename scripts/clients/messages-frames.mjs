// Anthropic Messages SSE as the API sends it (event order and field shapes from
// the wire-formats reference §Messages and the SDK's MessageStream):
// message_start, then per block content_block_start → deltas → content_block_stop,
// then message_delta (stop_reason, usage) and message_stop.
import { chunks, fakeId, sendJsonReply, startSse, writeEvent } from './sse.mjs';

const MODEL = 'claude-sonnet-4-5-20250929';

function usage(output) {
  return { input_tokens: 42, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: output };
}

function blockStart(part) {
  if (part.thinking !== undefined) return { type: 'thinking', thinking: '', signature: '' };
  if (part.tool) return { type: 'tool_use', id: part.tool.id, name: part.tool.name, input: {} };
  return { type: 'text', text: '' };
}

function writeDeltas(res, index, part) {
  if (part.thinking !== undefined) {
    for (const thinking of chunks(part.thinking)) writeEvent(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking } });
    // A signature arrives only when the block completes; a cut block never gets one.
    if (!part.open && !part.unsigned) writeEvent(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: 'EqQBCkgIARABGAIiQL2scripted' } });
    return;
  }
  if (part.tool) {
    for (const partial_json of chunks(JSON.stringify(part.tool.input), 16)) writeEvent(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } });
    return;
  }
  for (const text of chunks(part.text)) writeEvent(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
}

/**
 * Streams a reply: `parts` are `{thinking, open?, unsigned?}`, `{text, open?}` or `{tool:{id,name,input}}`.
 * `cut` ends the body cleanly right after the last part, with no message_delta/message_stop
 * (and an `open` last part without its content_block_stop): the R4 trigger.
 */
export function streamMessage(res, { parts, cut = false, stopReason = 'end_turn' }) {
  startSse(res, 'request-id', fakeId('req_011'));
  const message = { id: fakeId('msg_01'), type: 'message', role: 'assistant', model: MODEL, content: [], stop_reason: null, stop_sequence: null, usage: usage(1) };
  writeEvent(res, 'message_start', { type: 'message_start', message });
  writeEvent(res, 'ping', { type: 'ping' });
  parts.forEach((part, index) => {
    writeEvent(res, 'content_block_start', { type: 'content_block_start', index, content_block: blockStart(part) });
    writeDeltas(res, index, part);
    if (!part.open) writeEvent(res, 'content_block_stop', { type: 'content_block_stop', index });
  });
  if (!cut) {
    writeEvent(res, 'message_delta', { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 64 } });
    writeEvent(res, 'message_stop', { type: 'message_stop' });
  }
  res.end();
}

function jsonBlock(part) {
  if (part.thinking !== undefined) return { type: 'thinking', thinking: part.thinking, signature: 'EqQBCkgIARABGAIiQL2scripted' };
  if (part.tool) return { type: 'tool_use', ...part.tool };
  return { type: 'text', text: part.text };
}

/**
 * A non-streaming Messages body for the same reply script. A `cut` reply becomes
 * the first half of the JSON, then a clean EOF: what a dropped upstream looks like.
 */
export function sendMessageJson(res, { parts, cut = false, stopReason = 'end_turn' }) {
  const body = { id: fakeId('msg_01'), type: 'message', role: 'assistant', model: MODEL, content: parts.map(jsonBlock), stop_reason: stopReason, stop_sequence: null, usage: usage(8) };
  sendJsonReply(res, body, cut, 'request-id', fakeId('req_011'));
}

/** Does this Messages body carry a tool_result whose content includes `needle`? */
export function hasToolResult(body, needle) {
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  return messages.some((message) => Array.isArray(message.content) && message.content.some(
    (block) => block?.type === 'tool_result' && JSON.stringify(block.content ?? '').includes(needle)));
}
