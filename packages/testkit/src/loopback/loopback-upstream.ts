import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { ReplyPlan } from '../wire/reply-plan.js';
import {
  UpstreamState,
  exposeUpstreamControls,
  findRouteProtocol,
  parseJsonBody,
  type RecordedRequest,
  type UpstreamControls,
  type UpstreamOptions,
} from '../upstream/upstream-state.js';
import { flattenRequestHeaders, readRequestText } from '../upstream/read-node-request.js';
import { answerSideRoute } from './side-routes.js';

/**
 * A real `node:http` upstream on 127.0.0.1 serving the same scenarios as the
 * msw handlers. It exists because msw cannot drop a socket (toolchain
 * pitfall 5): here `destroySocket()` really calls `res.socket.destroy()`, so
 * fetch raises undici's own `TypeError: terminated`. Besides the three turn
 * routes it answers what real clients also call: the model list, one model
 * and Messages `count_tokens` (side-routes.ts).
 */
export interface LoopbackUpstream extends UpstreamControls {
  /** `http://127.0.0.1:<port>/v1`: point an SDK's `baseURL` here. */
  readonly baseUrl: string;
  readonly port: number;
  /** Stops pending replies, closes every connection and the listener. */
  close(): Promise<void>;
}

export async function startLoopbackUpstream(options: UpstreamOptions = {}): Promise<LoopbackUpstream> {
  const state = new UpstreamState(options);
  const sockets = new Set<Socket>();
  const timers = new Map<ReturnType<typeof setTimeout>, () => void>();
  let closing = false;

  const wait = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.set(timer, resolve);
    });

  const write = (response: ServerResponse, chunk: Uint8Array): Promise<void> =>
    new Promise((resolve) => {
      // The callback fires once the bytes are handed to the kernel, so a destroy that follows cannot drop them.
      response.write(chunk, () => resolve());
    });

  async function playReply(response: ServerResponse, plan: ReplyPlan): Promise<void> {
    if (plan.destroyBeforeHeaders) {
      response.socket?.destroy();
      return;
    }
    response.writeHead(plan.status, plan.headers);
    response.flushHeaders();
    for (const chunk of plan.chunks) {
      if (plan.chunkDelayMs > 0) await wait(plan.chunkDelayMs);
      if (closing || response.destroyed) return;
      await write(response, chunk);
    }
    if (plan.end === 'destroy') response.socket?.destroy();
    else response.end();
  }

  async function handleRequest(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', `http://${request.headers.host ?? '127.0.0.1'}`);
    const bodyText = await readRequestText(request);
    const protocol = request.method === 'POST' ? findRouteProtocol(url.pathname) : undefined;
    if (protocol === undefined) {
      const answer = answerSideRoute(state.name, request.method ?? '', url.pathname, request.headers, bodyText, `req_${randomUUID().replace(/-/g, '')}`);
      const text = JSON.stringify(answer.body);
      response.writeHead(answer.status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...answer.headers });
      response.end(request.method === 'HEAD' ? undefined : text);
      return;
    }
    const recorded: RecordedRequest = {
      protocol,
      method: request.method ?? 'POST',
      url: url.toString(),
      headers: flattenRequestHeaders(request),
      body: parseJsonBody(bodyText),
      bodyText,
    };
    await playReply(response, state.takeReply(recorded));
  }

  const server = createServer((request, response) => {
    handleRequest(request, response).catch(() => {
      // The client went away or the server is closing; there is nobody left to answer.
      response.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    port,
    ...exposeUpstreamControls(state),
    async close() {
      closing = true;
      for (const [timer, resolve] of timers) {
        clearTimeout(timer);
        resolve();
      }
      timers.clear();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
