// The parse-and-forward floor: what any proxy that must read, parse and re-send
// the JSON body pays — the gateway's own upstream transport and body reader, the
// upstream's bytes relayed as they arrive, no runTurn (ab-cold.mjs, memory-run.mjs --floor).
// Imports the gateway's TypeScript: bundled from source by its users.
import { Agent, createServer, request as httpRequest } from 'node:http';
import { createNodeHttpFetch } from '../../apps/gateway/src/http/create-node-http-fetch.ts';
import { parseJsonObject, readRequestBody } from '../../apps/gateway/src/http/read-request-body.ts';

/** Not listening yet. */
export function createParseForwardFloor(upstreamPort) {
  const upstreamUrl = `http://127.0.0.1:${upstreamPort}/v1/chat/completions`;
  const transport = createNodeHttpFetch();
  return createServer(async (request, response) => {
    const body = parseJsonObject(await readRequestBody(request, 32 * 1024 * 1024));
    const upstream = await transport.fetch(upstreamUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: request.headers.authorization ?? '' },
      // What runTurn changes in a Chat request (R5.2: usage in the stream).
      body: JSON.stringify({ ...body, stream_options: { include_usage: true } }),
      signal: new AbortController().signal,
    });
    response.writeHead(upstream.status, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    const reader = upstream.body.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) response.write(read.value);
    response.end();
  });
}

/**
 * The same floor over node:http's own client (a keep-alive Agent) instead of the gateway's undici
 * transport: what the transport costs per request, side by side (cpu-per-request.mjs --floor).
 */
export function createParseForwardFloorNodeHttp(upstreamPort) {
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  return createServer(async (request, response) => {
    const body = parseJsonObject(await readRequestBody(request, 32 * 1024 * 1024));
    const text = JSON.stringify({ ...body, stream_options: { include_usage: true } });
    const upstream = httpRequest({ host: '127.0.0.1', port: upstreamPort, method: 'POST', path: '/v1/chat/completions', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), authorization: request.headers.authorization ?? '' } }, (upstreamResponse) => {
      response.writeHead(upstreamResponse.statusCode ?? 502, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
      upstreamResponse.on('data', (chunk) => response.write(chunk));
      upstreamResponse.on('end', () => response.end());
    });
    upstream.on('error', () => response.destroy());
    upstream.end(text);
  });
}
