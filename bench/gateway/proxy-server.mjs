// The two proxies under test, in one child process (bundled from source by run.mjs):
// - the floor: a minimal pipe-through proxy (node:http request + pipe, keep-alive);
// - the turnguard gateway (createGateway, stats off, default R1/R4 settings).
// Usage: node proxy-server.cjs <upstreamPort>; prints {"pipePort":N,"gatewayPort":M}.
import { Agent, createServer, request as httpRequest } from 'node:http';
import { createGateway } from '../../apps/gateway/src/create-gateway.ts';

const upstreamPort = Number(process.argv[2]);
const agent = new Agent({ keepAlive: true, maxSockets: Infinity });

const pipe = createServer((request, response) => {
  const upstream = httpRequest(
    { host: '127.0.0.1', port: upstreamPort, method: request.method, path: request.url, headers: request.headers, agent },
    (upstreamResponse) => {
      response.writeHead(upstreamResponse.statusCode ?? 502, upstreamResponse.headers);
      upstreamResponse.pipe(response);
    },
  );
  upstream.on('error', () => response.destroy());
  request.pipe(upstream);
});
pipe.keepAliveTimeout = 60_000;

// Bundled as CommonJS (its dependencies use require), so no top-level await.
async function main() {
  await new Promise((resolve) => pipe.listen(0, '127.0.0.1', resolve));
  const gateway = createGateway({
    port: 0,
    upstreams: { chat: `http://127.0.0.1:${upstreamPort}/v1` },
    env: { OPENAI_API_KEY: 'sk-bench' },
  });
  const address = await gateway.listen();
  process.stdout.write(`${JSON.stringify({ pipePort: pipe.address().port, gatewayPort: address.port })}\n`);
}
void main();
process.on('disconnect', () => process.exit(0));
// A clean exit on SIGINT lets --cpu-prof write its profile.
process.on('SIGINT', () => process.exit(0));
