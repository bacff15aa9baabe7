import { maxHeaderSize } from 'node:http';
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Protocol, TurnError } from '@turnguard/core';
import type { Logger } from 'pino';
import { buildErrorBody, createClientError } from '../http/protocol-error-body.js';
import { sendProtocolError } from '../http/send-json.js';
import { noteRefusal } from '../logging/access-log.js';
import type { GatewayMetrics } from '../metrics/gateway-metrics.js';

/** What node:http reports when it could not read a request: its parser's code, and what it had read. */
export interface HttpClientError extends Error {
  code?: string;
  rawPacket?: Buffer;
}

const REASONS: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 413: 'Payload Too Large', 431: 'Request Header Fields Too Large' };

/** node:http's own mapping (its default `clientError` answer), each now with a reason the client can read. */
function classify(error: HttpClientError): TurnError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return createClientError(431, 'GATEWAY_HEADERS_TOO_LARGE', `The request headers are larger than the gateway's limit of ${maxHeaderSize} bytes (node --max-http-header-size).`);
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return createClientError(413, 'GATEWAY_CHUNK_EXTENSIONS_TOO_LARGE', 'The chunk extensions of the request body are too large.');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return createClientError(408, 'GATEWAY_REQUEST_TIMEOUT', 'The whole request (headers and body) did not arrive within the gateway\'s request time-out (requestTimeoutMs).');
    default:
      return createClientError(400, 'GATEWAY_BAD_HTTP_REQUEST', 'The request is not valid HTTP/1.1.');
  }
}

/** The method and path of the request line, when the parser got that far: the route only, never the query (it may hold a key). */
function readRequestLine(raw: Buffer | undefined): { method: string | undefined; route: string | undefined } {
  const line = raw?.subarray(0, 2048).toString('latin1').split('\r\n', 1)[0] ?? '';
  const match = /^([A-Z]+) (\/\S*) HTTP\/1\.[01]$/.exec(line);
  if (match === null) return { method: undefined, route: undefined };
  return { method: match[1], route: match[2]!.split('?')[0] };
}

/** Anthropic's error shape for `/messages` paths, OpenAI's for the rest (what each SDK parses). */
function shapeFor(route: string | undefined): Protocol {
  return route !== undefined && /\/messages(\/|$)/.test(route) ? 'messages' : 'chat';
}

export interface ClientErrorContext {
  logger: Logger;
  metrics: GatewayMetrics;
  /** The response of the request in progress on this socket, if its head was read (a body time-out). */
  responseOn(socket: Socket): ServerResponse | undefined;
}

/**
 * node:http's `clientError`: a request it could not read (headers over the
 * limit, a request time-out, bad framing). Its own answer is a bare status
 * line; here the client gets a body in its protocol's error shape, and the
 * refusal is counted and logged like any other (R8.9, R8.11): the
 * `rejected` metric by code, and one access-log line. Before the head was
 * read there is no response object, so the answer goes to the socket itself.
 */
export function answerClientError(error: HttpClientError, socket: Socket, context: ClientErrorContext): void {
  const response = context.responseOn(socket);
  // A reset, or an answer already under way, leaves nobody to tell (node:http's own rule).
  if (error.code === 'ECONNRESET' || !socket.writable || socket.bytesWritten > 0 || response?.headersSent === true) {
    socket.destroy();
    return;
  }
  const refusal = classify(error);
  context.metrics.rejected.inc({ code: refusal.code });
  if (response !== undefined) {
    // Its access-log line follows when it closes (R8.11).
    noteRefusal(response, refusal.code);
    response.setHeader('connection', 'close');
    sendProtocolError(response, shapeFor((response.req.url ?? '/').split('?')[0]), refusal, refusal.status);
    return;
  }
  const status = refusal.status!;
  const { method, route } = readRequestLine(error.rawPacket);
  const body = JSON.stringify(buildErrorBody(shapeFor(route), refusal));
  const head = [
    `HTTP/1.1 ${status} ${REASONS[status]}`,
    'content-type: application/json',
    `content-length: ${Buffer.byteLength(body)}`,
    'x-should-retry: false',
    'connection: close',
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
  // Whatever the client still sends is not read: the socket goes once the answer is out.
  socket.once('finish', () => socket.destroy());
  context.logger.info({ method, route, status, physicalRequests: 0, recovered: false, outcome: refusal.code, completed: true, durationMs: 0 }, 'request');
}
