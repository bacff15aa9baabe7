import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** How an upstream answer ends: a proper end of the body, a FIN mid-body, an RST, or silence until the client leaves. */
export type UpstreamEnding = 'end' | 'fin' | 'rst' | 'hang';

/** One scripted upstream answer: its status and headers, the pieces of its body, each one write, and how it ends. */
export interface UpstreamPlan {
  status?: number;
  headers?: Record<string, string>;
  /** Body pieces, written one at a time with `gapMs` between them (each most likely its own network read). */
  pieces: readonly string[];
  ending?: UpstreamEnding;
  /** Pause before each piece after the first; 0 writes them back to back. Default 1 ms. */
  gapMs?: number;
}

/** A request head the upstream parsed ('request' event of node:http): what R6.1's samples are checked against. */
export interface UpstreamHead {
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown> | undefined;
}

export interface FaultUpstream {
  baseUrl: string;
  /** Answers for the next requests, in order; an empty queue answers a 500. */
  plans: UpstreamPlan[];
  /**
   * Answers for requests that carry `x-fault-schedule: <label>` (the gateway forwards the client's
   * headers), so a request that arrives late — aborted in flight by an earlier test — never takes
   * another one's answer.
   */
  labelled: Map<string, UpstreamPlan[]>;
  /** Every request head parsed, in order. */
  heads: UpstreamHead[];
  /** Resolves once every answer started so far has finished writing (or its socket closed). */
  settled(): Promise<void>;
  close(): Promise<void>;
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A loopback upstream that plays scripted answers with the faults a hostile
 * or broken provider produces (records split across writes, FIN or RST at
 * any byte, silence), and logs every request head it parsed. Real sockets:
 * the gateway's own transport reads it.
 */
export async function startFaultUpstream(): Promise<FaultUpstream> {
  const plans: UpstreamPlan[] = [];
  const labelled = new Map<string, UpstreamPlan[]>();
  const heads: UpstreamHead[] = [];
  const sockets = new Set<Socket>();
  const running = new Set<Promise<void>>();
  const server = createServer((request, response) => {
    const head: UpstreamHead = { url: request.url ?? '/', headers: request.headers, body: undefined };
    heads.push(head);
    const label = request.headers['x-fault-schedule'];
    const queue = typeof label === 'string' ? (labelled.get(label) ?? []) : plans;
    const plan = queue.shift() ?? { status: 500, pieces: ['{"error":{"message":"no plan","type":"server_error"}}'] };
    const played = readBody(request).then((text) => {
      head.body = parseJson(text);
      return play(plan, response);
    });
    running.add(played);
    void played.finally(() => running.delete(played));
  });
  server.keepAliveTimeout = 60_000;
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    plans,
    labelled,
    heads,
    async settled() {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (part: string) => (text += part));
    request.on('end', () => resolve(text));
    request.on('error', () => resolve(text));
  });
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

async function play(plan: UpstreamPlan, response: ServerResponse): Promise<void> {
  const status = plan.status ?? 200;
  const contentType = status === 200 ? 'text/event-stream' : 'application/json';
  response.writeHead(status, { 'content-type': contentType, ...plan.headers });
  const gapMs = plan.gapMs ?? 1;
  // A write's callback may never come once the client (the gateway) dropped the connection.
  const closed = new Promise<void>((resolve) => response.once('close', () => resolve()));
  for (const [index, piece] of plan.pieces.entries()) {
    if (index > 0 && gapMs > 0) await delay(gapMs);
    if (response.destroyed) return;
    await Promise.race([new Promise<void>((resolve) => response.write(piece, () => resolve())), closed]);
  }
  if (gapMs > 0) await delay(gapMs);
  const socket = response.socket;
  switch (plan.ending ?? 'end') {
    case 'end':
      response.end();
      return;
    case 'fin':
      // The body's chunked framing is never finished: a FIN mid-body is a cut for the client.
      socket?.end();
      return;
    case 'rst':
      socket?.resetAndDestroy();
      return;
    case 'hang':
      await closed;
      return;
  }
}

/** `text` cut into pieces at the given offsets (each piece one write). */
export function cutAt(text: string, offsets: readonly number[]): string[] {
  const points = [...new Set(offsets.filter((at) => at > 0 && at < text.length))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let from = 0;
  for (const at of points) {
    pieces.push(text.slice(from, at));
    from = at;
  }
  pieces.push(text.slice(from));
  return pieces;
}
