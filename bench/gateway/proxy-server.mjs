// The two proxies under test, in one child process (bundled from source by run.mjs):
// - the floor: a minimal pipe-through proxy (node:http request + pipe, keep-alive);
// - the turnguard gateway (createGateway, stats off, default R1/R4 settings);
// - with BENCH_GLOBAL_FETCH=1, a second gateway whose upstream transport is the
//   global (undici) `fetch` instead of the default node:http one.
// Usage: node proxy-server.cjs <upstreamPort>;
// prints {"pipePort":N,"gatewayPort":M[,"globalFetchGatewayPort":K]}.
import { createGateway } from '../../apps/gateway/src/create-gateway.ts';
import { createPipeProxy } from './pipe-proxy.mjs';

const upstreamPort = Number(process.argv[2]);
const pipe = createPipeProxy(upstreamPort);

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
