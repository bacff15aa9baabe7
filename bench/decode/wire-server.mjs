// Loopback upstream for the bench, run as its own child process so that
// serving never competes with the measured client for its event loop.
// Routes: POST /n/<records>/v1/{chat/completions|messages|responses}.
// One `res.write` per SSE record (real servers flush every event); the
// kernel and undici coalesce as they would. Bounded: it exits when its parent
// disconnects or after IDLE_EXIT_MS without a request.
import { createServer } from 'node:http';
import { once } from 'node:events';
import { renderWireStream } from './wire-streams.mjs';

const IDLE_EXIT_MS = 120_000;
const MIN_RECORDS = 100;
const MAX_RECORDS = 1_000_000;
const ROUTE = /^\/n\/(\d+)\/v1\/(chat\/completions|messages|responses)$/;
const PROTOCOL_OF_PATH = { 'chat/completions': 'chat', messages: 'messages', responses: 'responses' };

const plans = new Map();

/** Rendered once per (protocol, size): rendering 200 000 records takes seconds and must not be timed. */
function getPlan(protocol, records) {
  const key = `${protocol}:${records}`;
  if (!plans.has(key)) plans.set(key, renderWireStream(protocol, records));
  return plans.get(key);
}

async function serve(request, response) {
  const match = ROUTE.exec(request.url ?? '');
  const records = match ? Number(match[1]) : 0;
  if (request.method !== 'POST' || !match || records < MIN_RECORDS || records > MAX_RECORDS) {
    response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"no such bench route"}}');
    return;
  }
  request.resume();
  const plan = await getPlan(PROTOCOL_OF_PATH[match[2]], records);
  // The memory worker takes its GC checkpoints at tenths of the body, so it needs the size up front.
  const bodyBytes = plan.chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0);
  response.writeHead(plan.status, { ...plan.headers, 'x-bench-body-bytes': String(bodyBytes) });
  response.flushHeaders();
  for (const chunk of plan.chunks) {
    if (response.destroyed) return;
    if (!response.write(chunk)) await once(response, 'drain');
  }
  response.end();
}

let idleTimer;
function armIdleExit() {
  clearTimeout(idleTimer);
  idleTimer = setTimeout(() => process.exit(0), IDLE_EXIT_MS);
  idleTimer.unref();
}

const server = createServer((request, response) => {
  armIdleExit();
  serve(request, response).catch((error) => {
    process.stderr.write(`bench server: ${error instanceof Error ? error.message : String(error)}\n`);
    response.destroy();
  });
});
server.keepAliveTimeout = 30_000;

/** Pre-renders the sizes the parent will ask for, then reports the port. */
async function start() {
  const sizes = (process.argv[2] ?? '').split(',').filter(Boolean).map(Number);
  const protocols = (process.argv[3] ?? 'chat,messages,responses').split(',');
  for (const size of sizes) for (const protocol of protocols) await getPlan(protocol, size);
  server.listen(0, '127.0.0.1', () => {
    armIdleExit();
    const { port } = server.address();
    if (process.send) process.send({ port });
    else process.stdout.write(`listening on http://127.0.0.1:${port}\n`);
  });
}

process.on('disconnect', () => process.exit(0));
await start();
