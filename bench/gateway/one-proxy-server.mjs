// ONE proxy in its own process, for benches that measure the process itself
// (memory-run.mjs: its RSS and heap; keepalive-run.mjs: its sockets):
//   pipe                the pipe-through floor (pipe-proxy.mjs, keep-alive 60 s);
//   pipe-node-default   the same with Node's default 5 s server keep-alive (a control);
//   gateway             createGateway from the bundle given (gateway-bundle.mjs), stats off.
// Usage: node one-proxy-server.mjs <kind> <upstreamPort> [gateway.cjs]; prints {"port":N}.
import { createRequire } from 'node:module';
import { createPipeProxy } from './pipe-proxy.mjs';
import { startMemorySampler } from './memory-sampler.mjs';

const [kind, upstreamPortText, gatewayBundle] = process.argv.slice(2);
const upstreamPort = Number(upstreamPortText);

async function listen() {
  if (kind === 'gateway') {
    const { createGateway } = createRequire(import.meta.url)(gatewayBundle);
    const gateway = createGateway({ port: 0, upstreams: { chat: `http://127.0.0.1:${upstreamPort}/v1` }, env: { OPENAI_API_KEY: 'sk-bench' } });
    return (await gateway.listen()).port;
  }
  if (kind !== 'pipe' && kind !== 'pipe-node-default') throw new Error(`unknown proxy kind ${kind}`);
  const pipe = createPipeProxy(upstreamPort, kind === 'pipe' ? {} : { keepAliveTimeout: 5_000 });
  await new Promise((resolve) => pipe.listen(0, '127.0.0.1', resolve));
  return pipe.address().port;
}

startMemorySampler();
process.stdout.write(`${JSON.stringify({ port: await listen() })}\n`);
process.on('disconnect', () => process.exit(0));
