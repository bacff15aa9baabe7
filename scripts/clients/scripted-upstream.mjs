// A loopback upstream that speaks Anthropic Messages, OpenAI Responses and OpenAI Chat
// Completions SSE with recorded-looking frames, plays the current scenario to each client's main
// request, and answers the side requests real CLIs make (title/quota calls,
// model lists, token counts) so nothing fails for a reason outside the test.
import http from 'node:http';
import { sendChatJson, streamChat } from './chat-frames.mjs';
import { sendMessageJson, streamMessage } from './messages-frames.mjs';
import { CONTINUER_MODEL, FALLBACK_MODEL, replyFor } from './replies.mjs';
import { describeRequest, parseJson, readBody } from './request-shape.mjs';
import { sendResponseJson, streamResponse } from './responses-frames.mjs';
import { fakeId, sendJson } from './sse.mjs';

const SIDE_ANSWER = 'turnguard-side-answer';

function sendModels(res, anthropic) {
  const model = anthropic
    ? { type: 'model', id: 'claude-sonnet-4-5-20250929', display_name: 'Claude Sonnet 4.5', created_at: '2025-09-29T00:00:00Z' }
    : { id: 'gpt-5-codex', object: 'model', created: 1757000000, owned_by: 'openai' };
  const body = anthropic ? { data: [model], has_more: false, first_id: model.id, last_id: model.id } : { object: 'list', data: [model] };
  sendJson(res, 200, body, anthropic ? 'request-id' : 'x-request-id', fakeId('req_'));
}

function sendNotFound(res, anthropic) {
  const body = anthropic
    ? { type: 'error', error: { type: 'not_found_error', message: 'Not found' }, request_id: fakeId('req_011') }
    : { error: { message: 'Not found', type: 'invalid_request_error', param: null, code: 'unknown_url' } };
  sendJson(res, 404, body, anthropic ? 'request-id' : 'x-request-id', fakeId('req_'));
}

/** A background subagent's system prompt (Qwen Code's memory extraction, after the answer): it declares tools, yet is no turn of the person's. */
const SUBAGENT_PROMPT = /^You are now acting as the [\w -]*subagent/;

/** A Chat request's system message as text: a string, or its text parts joined. */
function systemText(body) {
  const first = Array.isArray(body?.messages) ? body.messages[0] : undefined;
  if (first?.role !== 'system') return '';
  if (typeof first.content === 'string') return first.content;
  return Array.isArray(first.content) ? first.content.map((part) => part?.text ?? '').join('') : '';
}

/**
 * An agent's main turn declares its tools; title, quota and next-speaker calls declare
 * none (Claude Code, opencode), and a background subagent is told apart by its prompt.
 */
function isMainRequest(protocol, body) {
  if (protocol === 'responses') return true;
  const tools = Array.isArray(body?.tools) ? body.tools : [];
  return tools.length > 0 && !(protocol === 'chat' && SUBAGENT_PROMPT.test(systemText(body)));
}

/** An upstream error in the protocol's own shape (a 503 that the gateway's budget, then its fallback, handle). */
function sendUnavailable(res, protocol) {
  const body = protocol === 'messages'
    ? { type: 'error', error: { type: 'api_error', message: 'Service unavailable (scripted)' }, request_id: fakeId('req_011') }
    : { error: { message: 'Service unavailable (scripted)', type: 'server_error', param: null, code: null } };
  sendJson(res, 503, body, protocol === 'messages' ? 'request-id' : 'x-request-id', fakeId('req_'));
}

/** Which kind of request a main one is: the chain's fallback, a continuation (R11.6), a recovery (R4), or the turn itself. */
function roleOf(body, shape) {
  if (shape.recovery) return 'recovery';
  if (Array.isArray(body?.messages) && body.messages.at(-1)?.role === 'assistant') return 'continuation';
  return body?.model === FALLBACK_MODEL || body?.model === CONTINUER_MODEL ? 'fallback' : 'main';
}

function answer(protocol, scenario, body, shape, res) {
  const main = isMainRequest(protocol, body);
  shape.role = main ? roleOf(body, shape) : 'side';
  const reply = main ? replyFor(scenario, protocol, body, shape.recovery) : { parts: [{ text: SIDE_ANSWER }] };
  if (reply.status !== undefined) return sendUnavailable(res, protocol);
  if (protocol === 'chat') return body?.stream === true ? streamChat(res, reply, body) : sendChatJson(res, reply);
  if (body?.stream === true) return protocol === 'messages' ? streamMessage(res, reply) : streamResponse(res, reply);
  return protocol === 'messages' ? sendMessageJson(res, reply) : sendResponseJson(res, reply);
}

function route(req, res, body, shape, scenario) {
  const path = (req.url ?? '').split('?')[0];
  const anthropic = 'anthropic-version' in req.headers || 'x-api-key' in req.headers;
  if (req.method === 'POST' && path.endsWith('/messages/count_tokens')) return sendJson(res, 200, { input_tokens: 1234 }, 'request-id', fakeId('req_011'));
  if (req.method === 'POST' && path.endsWith('/messages')) return answer('messages', scenario, body, shape, res);
  if (req.method === 'POST' && path.endsWith('/responses')) return answer('responses', scenario, body, shape, res);
  if (req.method === 'POST' && path.endsWith('/chat/completions')) return answer('chat', scenario, body, shape, res);
  if (req.method === 'GET' && /\/models(\/[^/]+)?$/.test(path)) return sendModels(res, anthropic);
  return sendNotFound(res, anthropic);
}

/** Starts the upstream on 127.0.0.1; `setScenario` picks what main requests get. */
export async function startScriptedUpstream() {
  let scenario = 'plain';
  const shapes = [];
  const server = http.createServer(async (req, res) => {
    const bodyText = await readBody(req);
    const shape = describeRequest(req, bodyText);
    shapes.push(shape);
    try {
      route(req, res, parseJson(bodyText), shape, scenario);
    } catch (error) {
      sendJson(res, 500, { error: { message: `scripted upstream: ${error.message}` } }, 'x-request-id', fakeId('req_'));
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = server.address().port;
  return {
    port,
    setScenario(name) { scenario = name; shapes.length = 0; },
    takeShapes() { return shapes.splice(0); },
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}
