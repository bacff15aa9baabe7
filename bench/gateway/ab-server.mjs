// The child process of ab-cold.mjs (bundled by it): one turnguard gateway per
// bundle given (each tree's createGateway, stats off, default R1/R4), plus the
// parse-and-forward floor: what any proxy that must read, parse and re-send the
// JSON body pays — the gateway's own node:http transport and body reader, the
// upstream's bytes relayed as they arrive, no runTurn.
// Usage: node ab-server.cjs <upstreamPort> <gateway.cjs>...; prints {"floor":N,"gateways":[M…]}.
import { createServer } from 'node:http';
import { createNodeHttpFetch } from '../../apps/gateway/src/http/create-node-http-fetch.ts';
import { parseJsonObject, readRequestBody } from '../../apps/gateway/src/http/read-request-body.ts';

const [upstreamPort, ...bundles] = process.argv.slice(2);
const upstreamUrl = `http://127.0.0.1:${upstreamPort}/v1/chat/completions`;
const transport = createNodeHttpFetch();

const floor = createServer(async (request, response) => {
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

const listen = (server) => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));

// Bundled as CommonJS: `require` loads each tree's gateway bundle; no top-level await.
async function main() {
  const gateways = [];
  for (const file of bundles) {
    const { createGateway } = require(file);
    const gateway = createGateway({ port: 0, upstreams: { chat: `http://127.0.0.1:${upstreamPort}/v1` }, env: { OPENAI_API_KEY: 'sk-bench' } });
    gateways.push((await gateway.listen()).port);
  }
  process.stdout.write(`${JSON.stringify({ floor: await listen(floor), gateways })}\n`);
}
void main();
process.on('disconnect', () => process.exit(0));
