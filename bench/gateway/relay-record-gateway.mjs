// The child process of relay-record.mjs (bundled by it, also into a baseline tree): one
// turnguard gateway (createGateway, stats off) in front of the given upstream. On "peak" over
// IPC it answers this process's peak RSS growth since listening (`maxRSS`, bytes).
// Usage: node relay-record-gateway.cjs <upstreamPort>; prints {"port":N}.
import { createGateway } from '../../apps/gateway/src/create-gateway.ts';

const upstreamPort = Number(process.argv[2]);

async function main() {
  const gateway = createGateway({ port: 0, upstreams: { chat: `http://127.0.0.1:${upstreamPort}/v1` }, env: { OPENAI_API_KEY: 'sk-bench' } });
  const { port } = await gateway.listen();
  const baseline = process.memoryUsage.rss();
  process.on('message', (message) => {
    if (message === 'peak') process.send({ peakGrowthBytes: process.resourceUsage().maxRSS * 1024 - baseline });
  });
  process.stdout.write(`${JSON.stringify({ port })}\n`);
  process.on('disconnect', () => process.exit(0));
}
main();
