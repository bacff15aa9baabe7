// A collector's OTLP/HTTP port on loopback for the benches' "OTel on" gateways: takes every export,
// answers 200, keeps nothing but counts. Usage: node otlp-sink.mjs; prints {"port":N}; {cmd:'counts'} over IPC.
import { createServer } from 'node:http';

const counts = { traces: 0, metrics: 0, bytes: 0 };
const server = createServer((request, response) => {
  request.on('data', (chunk) => (counts.bytes += chunk.length));
  request.on('end', () => {
    if (request.url === '/v1/traces') counts.traces += 1;
    if (request.url === '/v1/metrics') counts.metrics += 1;
    response.writeHead(200, { 'content-type': request.headers['content-type'] ?? 'application/x-protobuf' });
    response.end();
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
process.on('message', (message) => {
  if (message?.cmd === 'counts') process.send?.({ ...counts });
});
process.on('disconnect', () => process.exit(0));
