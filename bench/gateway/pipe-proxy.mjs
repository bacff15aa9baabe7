// The floor every gateway bench compares with: a minimal pipe-through proxy
// (node:http request + pipe, keep-alive to the upstream). Not listening yet.
import { Agent, createServer, request as httpRequest } from 'node:http';

/** `keepAliveTimeout`: the inbound server's (default 60 s; Node's own default is 5 s). */
export function createPipeProxy(upstreamPort, { keepAliveTimeout = 60_000 } = {}) {
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  const pipe = createServer((request, response) => {
    const upstream = httpRequest(
      { host: '127.0.0.1', port: upstreamPort, method: request.method, path: request.url, headers: request.headers, agent },
      (upstreamResponse) => {
        response.writeHead(upstreamResponse.statusCode ?? 502, upstreamResponse.headers);
        upstreamResponse.pipe(response);
      },
    );
    upstream.on('error', () => response.destroy());
    request.pipe(upstream);
  });
  pipe.keepAliveTimeout = keepAliveTimeout;
  return pipe;
}
