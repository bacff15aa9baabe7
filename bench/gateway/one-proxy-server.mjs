// ONE proxy in its own process, for benches that measure the process itself
// (memory-run.mjs: its RSS and heap; keepalive-run.mjs: its sockets):
//   pipe                the pipe-through floor (pipe-proxy.mjs, keep-alive 60 s);
//   pipe-node-default   the same with Node's default 5 s server keep-alive (a control);
//   gateway             createGateway from the bundle given (gateway-bundle.mjs), stats off;
//   parse-forward       the parse-and-forward floor from the bundle given (parse-forward-floor.mjs);
//   parse-forward-node  the same floor over node:http's client instead of the gateway's undici transport.
// Usage: node one-proxy-server.mjs <kind> <upstreamPort> [bundle.cjs]; prints {"port":N}.
import { createRequire } from 'node:module';
import { createPipeProxy } from './pipe-proxy.mjs';
import { startMemorySampler } from './memory-sampler.mjs';

const [kind, upstreamPortText, bundle] = process.argv.slice(2);
const upstreamPort = Number(upstreamPortText);

async function listen() {
  if (kind === 'gateway') {
    const { createGateway } = createRequire(import.meta.url)(bundle);
    const gateway = createGateway({ port: 0, upstreams: { chat: `http://127.0.0.1:${upstreamPort}/v1` }, env: { OPENAI_API_KEY: 'sk-bench' } });
    return (await gateway.listen()).port;
  }
  let server;
  if (kind === 'parse-forward') server = createRequire(import.meta.url)(bundle).createParseForwardFloor(upstreamPort);
  else if (kind === 'parse-forward-node') server = createRequire(import.meta.url)(bundle).createParseForwardFloorNodeHttp(upstreamPort);
  else if (kind === 'pipe' || kind === 'pipe-node-default') server = createPipeProxy(upstreamPort, kind === 'pipe' ? {} : { keepAliveTimeout: 5_000 });
  else throw new Error(`unknown proxy kind ${kind}`);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server.address().port;
}

startMemorySampler();
process.stdout.write(`${JSON.stringify({ port: await listen() })}\n`);
process.on('disconnect', () => process.exit(0));
// A clean exit on SIGINT lets --cpu-prof write its profile (cpu-per-request.mjs, BENCH_PROFILE_DIR).
process.on('SIGINT', () => process.exit(0));
