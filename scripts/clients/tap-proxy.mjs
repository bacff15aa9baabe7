// A byte-for-byte forwarding tap between a client and the gateway: it records what
// the real client sent (request-shape.mjs, no content) before the gateway rewrites
// anything, and pipes the gateway's answer back untouched.
import http from 'node:http';
import { frameSniffer } from './frame-log.mjs';
import { describeRequest, readBodyBytes } from './request-shape.mjs';

export async function startTap(targetPort, onShape) {
  const server = http.createServer(async (req, res) => {
    const body = await readBodyBytes(req);
    const shape = describeRequest(req, body.toString('utf8'));
    onShape(shape);
    const upstream = http.request({ host: '127.0.0.1', port: targetPort, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
      shape.answer = { status: answer.statusCode, headers: Object.keys(answer.headers).sort(), frames: frameSniffer() };
      if (String(answer.headers['content-type']).includes('text/event-stream')) answer.on('data', (chunk) => shape.answer.frames.push(chunk));
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    upstream.end(body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}
