// A Chat Completions SSE upstream for the gateway bench: headers and the
// first chunk at once, then `chunks` text deltas `intervalMs` apart, a finish
// chunk, a usage chunk and [DONE] — the shape openai-node parses. A request
// for model `bench-warmup` gets the same stream without pacing (run.mjs's
// steady-state warm-up: the same code path, many requests in little time).
// Usage (child process): node upstream-server.mjs <chunks> <intervalMs>; prints {"port":N}.
import { createServer } from 'node:http';

const chunks = Number(process.argv[2] ?? 100);
const intervalMs = Number(process.argv[3] ?? 2);
const created = Math.floor(Date.now() / 1000);
const record = (fields) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created, model: 'bench', ...fields })}\n\n`;
const first = record({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] });
const delta = (index) => record({ choices: [{ index: 0, delta: { content: `word${index} ` }, logprobs: null, finish_reason: null }] });
const tail =
  record({ choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }] }) +
  record({ choices: [], usage: { prompt_tokens: 10, completion_tokens: chunks, total_tokens: 10 + chunks } }) +
  'data: [DONE]\n\n';

const server = createServer((request, response) => {
  let body = '';
  request.setEncoding('utf8');
  request.on('data', (part) => (body += part));
  request.on('end', () => {
    const paceMs = body.includes('"model":"bench-warmup"') ? 0 : intervalMs;
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    response.write(first);
    let sent = 0;
    const tick = () => {
      if (response.destroyed) return;
      if (sent === chunks) {
        response.end(tail);
        return;
      }
      response.write(delta(sent));
      sent += 1;
      if (paceMs === 0) setImmediate(tick);
      else setTimeout(tick, paceMs);
    };
    tick();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
process.on('disconnect', () => process.exit(0));
