// The child process of ab-cold.mjs (bundled by it): one turnguard gateway per
// bundle given (each tree's createGateway, stats off, default R1/R4), plus the
// parse-and-forward floor (parse-forward-floor.mjs).
// Usage: node ab-server.cjs <upstreamPort> <gateway.cjs>...; prints {"floor":N,"gateways":[M…]}.
import { createParseForwardFloor } from './parse-forward-floor.mjs';

const [upstreamPort, ...bundles] = process.argv.slice(2);
const floor = createParseForwardFloor(Number(upstreamPort));

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
