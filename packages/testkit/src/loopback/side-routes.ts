import type { IncomingHttpHeaders } from 'node:http';

/** A JSON answer the loopback upstream writes as it is. */
export interface JsonAnswer {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

/** The models a scripted upstream lists: names of the real families, so a client's model picker has something plausible. */
const OPENAI_MODELS = ['gpt-5', 'gpt-5-mini', 'gpt-4.1', 'gpt-4.1-mini'];
const ANTHROPIC_MODELS = [
  { id: 'claude-sonnet-4-5-20250929', display_name: 'Claude Sonnet 4.5', created_at: '2025-09-29T00:00:00Z' },
  { id: 'claude-opus-4-1-20250805', display_name: 'Claude Opus 4.1', created_at: '2025-08-05T00:00:00Z' },
  { id: 'claude-haiku-4-5-20251001', display_name: 'Claude Haiku 4.5', created_at: '2025-10-01T00:00:00Z' },
];
/** 2025-09-01 in Unix seconds, OpenAI's `created` for every listed model. */
const CREATED = 1_756_684_800;

function openAiModel(id: string): Record<string, unknown> {
  return { id, object: 'model', created: CREATED, owned_by: 'turnguard' };
}

function anthropicModel(model: (typeof ANTHROPIC_MODELS)[number]): Record<string, unknown> {
  return { type: 'model', ...model };
}

/** Anthropic's routes are told apart as the gateway does: a `/messages/…` path, or the `anthropic-version` header. */
function isAnthropic(path: string, headers: IncomingHttpHeaders): boolean {
  return /\/messages\//.test(path) || headers['anthropic-version'] !== undefined;
}

function notFound(anthropic: boolean, message: string, requestId: string): JsonAnswer {
  const body = anthropic
    ? { type: 'error', error: { type: 'not_found_error', message }, request_id: requestId }
    : { error: { message, type: 'invalid_request_error', param: null, code: 'unknown_url' } };
  return { status: 404, body, headers: requestIdHeader(anthropic, requestId) };
}

function requestIdHeader(anthropic: boolean, requestId: string): Record<string, string> {
  return anthropic ? { 'request-id': requestId } : { 'x-request-id': requestId };
}

/** A rough token count (≈ 4 characters per token), never 0 for a non-empty body: what `count_tokens` answers. */
function estimateTokens(bodyText: string): number {
  return Math.max(1, Math.ceil(bodyText.length / 4));
}

/**
 * The routes real clients call besides the three turn routes (R8.8): the
 * model list and one model (`GET …/models`, `…/models/{id}`, in OpenAI's or
 * Anthropic's shape) and Messages `POST …/messages/count_tokens`. Anything
 * else is a 404 in the family's error shape naming the method and the path
 * that was sent, worded with the upstream's `name`.
 */
export function answerSideRoute(name: string, method: string, path: string, headers: IncomingHttpHeaders, bodyText: string, requestId: string): JsonAnswer {
  const anthropic = isAnthropic(path, headers);
  const ids = requestIdHeader(anthropic, requestId);
  if (method === 'POST' && /\/messages\/count_tokens$/.test(path)) {
    return { status: 200, body: { input_tokens: estimateTokens(bodyText) }, headers: ids };
  }
  const model = /\/models(?:\/([^/]+))?$/.exec(path);
  if ((method === 'GET' || method === 'HEAD') && model !== null) {
    const id = model[1] === undefined ? undefined : decodeURIComponent(model[1]);
    if (anthropic) {
      const listed = ANTHROPIC_MODELS.map(anthropicModel);
      if (id === undefined) return { status: 200, body: { data: listed, has_more: false, first_id: ANTHROPIC_MODELS[0]!.id, last_id: ANTHROPIC_MODELS.at(-1)!.id }, headers: ids };
      const found = ANTHROPIC_MODELS.find((entry) => entry.id === id);
      // Any id answers (a client asks for the model it was told to use); a listed one with its own name.
      return { status: 200, body: anthropicModel(found ?? { id, display_name: id, created_at: '2025-09-01T00:00:00Z' }), headers: ids };
    }
    if (id === undefined) return { status: 200, body: { object: 'list', data: OPENAI_MODELS.map(openAiModel) }, headers: ids };
    return { status: 200, body: openAiModel(id), headers: ids };
  }
  return notFound(anthropic, `${name}: no route for ${method} ${path}`, requestId);
}
