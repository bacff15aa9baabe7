import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { Dispatcher } from 'undici';
import { createClientError } from '../http/protocol-error-body.js';
import { sendProtocolError } from '../http/send-json.js';
import type { UpstreamFamily } from '../protocol-routes.js';
import { selectForwardedRequestHeaders } from './forwarded-headers.js';
import { GATEWAY_OWN_REQUEST_HEADERS } from '../routing/parse-fallbacks-header.js';

/** Only `host` (and `expect`, which undici refuses: it sends the body at once) are the new request's own: the body streams as it came, so its length and encodings stay the client's. */
const PASS_THROUGH_OWN_REQUEST_HEADERS: ReadonlySet<string> = new Set(['host', 'expect', ...GATEWAY_OWN_REQUEST_HEADERS]);
const HOP_BY_HOP_RESPONSE = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'trailer', 'te']);

export interface PassThroughTarget {
  family: UpstreamFamily;
  /** The family's configured base URL: OpenAI's carries `/v1`, Anthropic's does not (decision 0041). */
  baseUrl: string;
  /** The environment's key, used only when the client sent none (R8.5). */
  envKey: string | undefined;
}

/**
 * The upstream URL for a client path. The client's `/v1` prefix is optional
 * (R8.8); OpenAI's base URL already ends in `/v1`, Anthropic's gets it here.
 */
export function buildPassThroughUrl(target: PassThroughTarget, clientPath: string): URL {
  const queryAt = clientPath.indexOf('?');
  const path = queryAt === -1 ? clientPath : clientPath.slice(0, queryAt);
  const query = queryAt === -1 ? '' : clientPath.slice(queryAt);
  const withoutVersion = path.replace(/^\/v1(?=\/|$)/, '');
  const base = target.baseUrl.replace(/\/+$/, '');
  const prefix = target.family === 'anthropic' && !/\/v1$/.test(base) ? '/v1' : '';
  return new URL(`${base}${prefix}${withoutVersion}${query}`);
}

function addEnvironmentKey(headers: Record<string, string>, target: PassThroughTarget): void {
  if (headers.authorization !== undefined || headers['x-api-key'] !== undefined || target.envKey === undefined) return;
  if (target.family === 'anthropic') headers['x-api-key'] = target.envKey;
  else headers.authorization = `Bearer ${target.envKey}`;
}

/** A request whose client sent no body framing has none upstream either (undici refuses a body on GET/HEAD). */
function hasRequestBody(request: IncomingMessage): boolean {
  return request.headers['transfer-encoding'] !== undefined || (request.headers['content-length'] ?? '0') !== '0';
}

function relayedResponseHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const relayed: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && !HOP_BY_HOP_RESPONSE.has(name)) relayed[name] = value;
  return relayed;
}

/**
 * Every path that is not a recovery route (R8.8: `GET /v1/models`,
 * `/v1/models/{id}`, `POST /v1/messages/count_tokens`, embeddings, files…):
 * forwarded unchanged — method, path, query, headers, body streamed as it came —
 * and the upstream's answer streamed back with its status and headers, no
 * recovery, like a reverse proxy. It goes over the recovery routes' undici
 * dispatcher, so keep-alive pools and HTTP(S)_PROXY / NO_PROXY apply alike.
 * A client that leaves ends the upstream request.
 */
export async function passThroughRequest(request: IncomingMessage, response: ServerResponse, target: PassThroughTarget, dispatcher: Dispatcher): Promise<void> {
  const url = buildPassThroughUrl(target, request.url ?? '/');
  const headers = selectForwardedRequestHeaders(request.headers, PASS_THROUGH_OWN_REQUEST_HEADERS);
  addEnvironmentKey(headers, target);
  const clientGone = new AbortController();
  const onClose = (): void => {
    if (!response.writableFinished) clientGone.abort();
  };
  response.once('close', onClose);
  try {
    const answer = await dispatcher.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: (request.method ?? 'GET') as Dispatcher.HttpMethod,
      headers,
      body: hasRequestBody(request) ? request : null,
      signal: clientGone.signal,
    });
    response.writeHead(answer.statusCode, relayedResponseHeaders(answer.headers));
    await pipeline(answer.body, response);
  } catch {
    if (clientGone.signal.aborted) return;
    if (response.headersSent) {
      response.destroy();
      return;
    }
    const protocol = target.family === 'anthropic' ? 'messages' : 'chat';
    sendProtocolError(response, protocol, createClientError(502, 'GATEWAY_UPSTREAM_UNREACHABLE', `The upstream for ${url.pathname} could not be reached.`, 'transport'), 502);
  } finally {
    response.off('close', onClose);
  }
}
