import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createClientError } from '../http/protocol-error-body.js';
import { sendProtocolError } from '../http/send-json.js';
import type { UpstreamFamily } from '../protocol-routes.js';
import { selectForwardedRequestHeaders } from './forwarded-headers.js';

/** Only `host` is the new request's own: the body is piped as it came, so its length and encodings stay the client's. */
const PASS_THROUGH_OWN_REQUEST_HEADERS: ReadonlySet<string> = new Set(['host']);
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

/**
 * Every path that is not a recovery route (R8.8: `GET /v1/models`,
 * `/v1/models/{id}`, `POST /v1/messages/count_tokens`, embeddings, files…):
 * forwarded unchanged — method, path, query, headers, body piped as it came —
 * and the upstream's answer piped back with its status and headers, no
 * recovery, like a reverse proxy. A client that leaves ends the upstream request.
 */
export function passThroughRequest(request: IncomingMessage, response: ServerResponse, target: PassThroughTarget): Promise<void> {
  const url = buildPassThroughUrl(target, request.url ?? '/');
  const headers = selectForwardedRequestHeaders(request.headers, PASS_THROUGH_OWN_REQUEST_HEADERS);
  addEnvironmentKey(headers, target);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const upstream = send(url, { method: request.method, headers }, (answer) => {
      const relayed: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined && !HOP_BY_HOP_RESPONSE.has(name)) relayed[name] = value;
      response.writeHead(answer.statusCode ?? 502, relayed);
      answer.pipe(response);
      answer.once('end', resolve);
      answer.once('error', () => {
        response.destroy();
        resolve();
      });
    });
    upstream.once('error', () => {
      if (!response.headersSent) {
        const protocol = target.family === 'anthropic' ? 'messages' : 'chat';
        sendProtocolError(response, protocol, createClientError(502, 'GATEWAY_UPSTREAM_UNREACHABLE', `The upstream for ${url.pathname} could not be reached.`, 'transport'), 502);
      } else response.destroy();
      resolve();
    });
    response.once('close', () => {
      if (!response.writableFinished) upstream.destroy();
      resolve();
    });
    request.pipe(upstream);
  });
}
