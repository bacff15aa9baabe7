// OpenAI Chat Completions SSE as the API (and the OpenAI-compatible servers Qwen Code
// talks to) sends it: `data:` records of `chat.completion.chunk`, the role on the first
// delta, `reasoning_content` deltas (DeepSeek/Qwen style thinking), then a chunk with
// `finish_reason`, a usage chunk (`choices: []`) when asked for, and `data: [DONE]`.
import { chunks, fakeId, sendJsonReply } from './sse.mjs';

const MODEL = 'tg-model';

function startChatSse(res) {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-request-id': fakeId('req_') });
}

function deltasOf(part) {
  if (part.reasoning !== undefined) return chunks(part.reasoning).map((reasoning_content) => ({ reasoning_content }));
  if (part.tool) {
    const [first, ...rest] = chunks(part.tool.arguments, 16);
    const call = (fields) => ({ tool_calls: [{ index: 0, ...fields }] });
    return [call({ id: part.tool.id, type: 'function', function: { name: part.tool.name, arguments: first ?? '' } }), ...rest.map((args) => call({ function: { arguments: args } }))];
  }
  return chunks(part.text).map((content) => ({ content }));
}

/**
 * Streams a reply: `parts` are `{reasoning, open?}`, `{text, open?}` or `{tool:{id,name,arguments}}`.
 * `cut` ends the body cleanly after the last part with no `finish_reason` chunk and no
 * `[DONE]`: the R4 trigger on Chat.
 */
export function streamChat(res, { parts, cut = false, finishReason }, body) {
  startChatSse(res);
  const id = fakeId('chatcmpl-');
  const write = (choices, extra = {}) => res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1_757_000_000, model: MODEL, choices, ...extra })}\n\n`);
  write([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]);
  for (const part of parts) for (const delta of deltasOf(part)) write([{ index: 0, delta, finish_reason: null }]);
  if (!cut) {
    const finish = finishReason ?? (parts.some((part) => part.tool) ? 'tool_calls' : 'stop');
    write([{ index: 0, delta: {}, finish_reason: finish }]);
    if (body?.stream_options?.include_usage === true) write([], { usage: { prompt_tokens: 42, completion_tokens: 64, total_tokens: 106 } });
    res.write('data: [DONE]\n\n');
  }
  res.end();
}

/** A non-streaming `chat.completion` for the same script; a `cut` one is half a JSON body, then EOF. */
export function sendChatJson(res, { parts, cut = false }) {
  const text = parts.filter((part) => part.text !== undefined).map((part) => part.text).join('');
  const reasoning = parts.filter((part) => part.reasoning !== undefined).map((part) => part.reasoning).join('');
  const tools = parts.filter((part) => part.tool).map((part) => ({ id: part.tool.id, type: 'function', function: { name: part.tool.name, arguments: part.tool.arguments } }));
  const message = { role: 'assistant', content: text === '' ? null : text, ...(reasoning === '' ? {} : { reasoning_content: reasoning }), ...(tools.length === 0 ? {} : { tool_calls: tools }) };
  const body = {
    id: fakeId('chatcmpl-'),
    object: 'chat.completion',
    created: 1_757_000_000,
    model: MODEL,
    choices: [{ index: 0, message, finish_reason: tools.length > 0 ? 'tool_calls' : 'stop' }],
    usage: { prompt_tokens: 42, completion_tokens: 64, total_tokens: 106 },
  };
  sendJsonReply(res, body, cut, 'x-request-id', fakeId('req_'));
}

/** Does this Chat body carry a `tool` message whose content includes `needle`? */
export function hasToolMessage(body, needle) {
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  return messages.some((message) => message?.role === 'tool' && JSON.stringify(message.content ?? '').includes(needle));
}
