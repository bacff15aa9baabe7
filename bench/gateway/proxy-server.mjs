// The two proxies under test, in one child process (bundled from source by run.mjs):
// - the floor: a minimal pipe-through proxy (node:http request + pipe, keep-alive);
// - the turnguard gateway (createGateway, stats off, default R1/R4 settings);
// - with BENCH_GLOBAL_FETCH=1, a second gateway whose upstream transport is the
//   global (undici) `fetch` instead of the default node:http one.
// Usage: node proxy-server.cjs <upstreamPort>;
// prints {"pipePort":N,"gatewayPort":M[,"globalFetchGatewayPort":K]}.
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
  const ports = { pipePort: pipe.address().port, gatewayPort: address.port };
  if (process.env.BENCH_GLOBAL_FETCH === '1') {
    const globalFetchGateway = createGateway({
      port: 0,
      upstreams: { chat: `http://127.0.0.1:${upstreamPort}/v1` },
      env: { OPENAI_API_KEY: 'sk-bench' },
      fetch: (input, init) => globalThis.fetch(input, init),
    });
    ports.globalFetchGatewayPort = (await globalFetchGateway.listen()).port;
  }
  process.stdout.write(`${JSON.stringify(ports)}\n`);
}
void main();
process.on('disconnect', () => process.exit(0));
// A clean exit on SIGINT lets --cpu-prof write its profile.
process.on('SIGINT', () => process.exit(0));
