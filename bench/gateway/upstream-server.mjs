// A Chat Completions SSE upstream for the gateway bench: headers and the
// first chunk at once, then `chunks` text deltas `intervalMs` apart, a finish
// chunk, a usage chunk and [DONE] — the shape openai-node parses. A request
// for model `bench-warmup` gets the same stream without pacing or pause
// (run.mjs's steady-state warm-up: the same code path, many requests in little time).
// Usage (child process): node upstream-server.mjs <chunks> <intervalMs> [name=value…]; prints {"port":N}.
// Options (benches):
//   maxIntervalMs=M   each gap drawn uniformly in [intervalMs, M] (paced streams that overlap unevenly);
//   firstPauseMs=P    headers flushed at once, then P ms of silence before the first chunk
//                     (a model that thinks before its first token);
//   burst=1           the whole stream in one write after the head (a cached answer, or a buffering
//                     proxy in front of the model): the proxy's first read holds hundreds of records;
//   reasoningKb=K     K records of 1 KiB `reasoning_content` with the first chunk, before the
//                     paced text (a thinking phase, then the answer: what a stream holds meanwhile).
import { createServer } from 'node:http';

const chunks = Number(process.argv[2] ?? 100);
const intervalMs = Number(process.argv[3] ?? 2);
const options = Object.fromEntries(process.argv.slice(4).map((option) => option.split('=')).map(([name, value]) => [name, Number(value)]));
const maxIntervalMs = options.maxIntervalMs ?? intervalMs;
const firstPauseMs = options.firstPauseMs ?? 0;
const reasoningKb = options.reasoningKb ?? 0;
const burst = options.burst === 1;
const created = Math.floor(Date.now() / 1000);
const record = (fields) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created, model: 'bench', ...fields })}\n\n`;
const first = record({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] });
const thinking = Array.from({ length: reasoningKb }, (_unused, index) =>
  record({ choices: [{ index: 0, delta: { reasoning_content: `${index} `.padEnd(1024, 'r') }, logprobs: null, finish_reason: null }] }),
).join('');
const delta = (index) => record({ choices: [{ index: 0, delta: { content: `word${index} ` }, logprobs: null, finish_reason: null }] });
const tail =
  record({ choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }] }) +
  record({ choices: [], usage: { prompt_tokens: 10, completion_tokens: chunks, total_tokens: 10 + chunks } }) +
  'data: [DONE]\n\n';
/** burst=1: the whole body, made once (the bench times the proxy, not this server's JSON.stringify). */
const burstBody = burst ? first + thinking + Array.from({ length: chunks }, (_unused, index) => delta(index)).join('') + tail : '';
const gap = () => intervalMs + Math.random() * (maxIntervalMs - intervalMs);

const server = createServer((request, response) => {
  let body = '';
  request.setEncoding('utf8');
  request.on('data', (part) => (body += part));
  request.on('end', () => {
    const warmup = body.includes('"model":"bench-warmup"');
    const paceMs = warmup ? 0 : intervalMs;
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
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
      else setTimeout(tick, maxIntervalMs === intervalMs ? paceMs : gap());
    };
    const start = () => {
      if (response.destroyed) return;
      if (burst) {
        response.end(burstBody);
        return;
      }
      response.write(first + thinking);
      tick();
    };
    if (warmup || firstPauseMs === 0) start();
    else {
      response.flushHeaders();
      setTimeout(start, firstPauseMs);
    }
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
process.on('disconnect', () => process.exit(0));
