import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Protocol } from '@turnguard/core';
import { findRouteProtocol, parseJsonBody } from '../upstream/upstream-state.js';
import { fault as faults, type Fault, type FaultContext, type FaultRule } from './fault-spec.js';
import { renderFault, type FaultPlan } from './render-fault.js';
import { flattenRequestHeaders, readRequestText } from '../upstream/read-node-request.js';

/** One request as the fault upstream received it: its head, the model from its body, and when (R11.7 accounting). */
export interface FaultRequest {
  /** The fault upstream's clock when the request's body had arrived. */
  time: number;
  method: string;
  /** Path and query, e.g. `/v1/messages?beta=true`. */
  path: string;
  protocol: Protocol;
  /** `model` from the JSON body; `''` when there was none. */
  model: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: unknown;
}

/** What one model answers: queued faults first (each once), then its rule, then a healthy answer. */
export interface ModelScript {
  /** Faults for the next requests to this model, in order. */
  queue(...scripted: Array<Fault | FaultRule>): ModelScript;
  /** What every request gets once the queue is empty (a fault, or a rule over the request and the clock). */
  always(rule: Fault | FaultRule): ModelScript;
}

export interface FaultUpstreamOptions {
  /** The clock of `time` and of rules (default `Date.now`): a fake clock drives "down for a minute". */
  now?: () => number;
}

export interface FaultUpstream {
  /** `http://127.0.0.1:<port>`; every route answers under any prefix (`/v1/messages`, `/chat/completions`…). */
  readonly url: string;
  /** `${url}/v1`, the base OpenAI clients and the gateway's Chat/Responses upstreams take. */
  readonly baseUrl: string;
  /** The script of one model (created empty on first use: a healthy answer). */
  model(name: string): ModelScript;
  /** Every request, in arrival order. */
  readonly requests: readonly FaultRequest[];
  requestsFor(model: string): FaultRequest[];
  /** Forgets requests and scripts. */
  reset(): void;
  /** Ends held and delayed answers, drops every connection, stops listening. */
  close(): Promise<void>;
}

interface Script {
  queued: Array<Fault | FaultRule>;
  rule: Fault | FaultRule | undefined;
  served: number;
}

function readModel(body: unknown): string {
  const model = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).model : undefined;
  return typeof model === 'string' ? model : '';
}

/**
 * A scripted loopback upstream for the fail-over acceptance suite (R11):
 * several models (and so several configured upstreams, each pointed at its
 * own path prefix or the same root) at once, each with a queue of faults or
 * a rule, answering the three protocols with the testkit's wire builders,
 * over real sockets (no msw: a reset, a silent socket and a stall are real).
 */
export async function startFaultUpstream(options: FaultUpstreamOptions = {}): Promise<FaultUpstream> {
  const now = options.now ?? Date.now;
  const scripts = new Map<string, Script>();
  const requests: FaultRequest[] = [];
  const sockets = new Set<Socket>();
  const pending = new Set<() => void>();
  let serial = 0;
  let closing = false;

  const scriptOf = (model: string): Script => {
    let script = scripts.get(model);
    if (script === undefined) {
      script = { queued: [], rule: undefined, served: 0 };
      scripts.set(model, script);
    }
    return script;
  };

  /** A wait that `close()` cuts short. */
  const wait = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        pending.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      pending.add(done);
    });

  /** Resolves when the upstream closes or the client goes away. */
  const holdOpen = (response: ServerResponse): Promise<void> =>
    new Promise((resolve) => {
      const done = (): void => {
        pending.delete(done);
        resolve();
      };
      pending.add(done);
      response.once('close', done);
    });

  const write = (response: ServerResponse, chunk: Uint8Array): Promise<void> =>
    new Promise((resolve) => {
      response.write(chunk, () => resolve());
    });

  function chooseFault(protocol: Protocol, model: string, body: unknown): Fault {
    const script = scriptOf(model);
    const context: FaultContext = { protocol, model, index: script.served, now: now(), body };
    script.served += 1;
    const next = script.queued.shift() ?? script.rule ?? faults.ok();
    return typeof next === 'function' ? next(context) : next;
  }

  async function play(response: ServerResponse, plan: FaultPlan): Promise<void> {
    if (plan.destroyBeforeHeaders) {
      response.socket?.destroy();
      return;
    }
    if (plan.holdBeforeHeaders) return holdOpen(response);
    response.writeHead(plan.status, plan.headers);
    response.flushHeaders();
    for (const [index, chunk] of plan.chunks.entries()) {
      const delay = index === 0 ? Math.max(plan.firstChunkDelayMs, plan.chunkDelayMs) : plan.chunkDelayMs;
      if (delay > 0) await wait(delay);
      if (closing || response.destroyed) return;
      await write(response, chunk);
    }
    if (plan.end === 'destroy') response.socket?.destroy();
    else if (plan.end === 'hold') await holdOpen(response);
    else response.end();
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = request.url ?? '/';
    const bodyText = await readRequestText(request);
    const protocol = request.method === 'POST' ? findRouteProtocol(path.split('?')[0] ?? '/') : undefined;
    if (protocol === undefined) {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: `fault upstream: no route for ${request.method ?? ''} ${path}`, type: 'not_found' } }));
      return;
    }
    const body = parseJsonBody(bodyText);
    const model = readModel(body);
    requests.push({ time: now(), method: request.method ?? 'POST', path, protocol, model, headers: flattenRequestHeaders(request), body });
    serial += 1;
    await play(response, renderFault(chooseFault(protocol, model, body), protocol, body, serial));
  }

  const server = createServer((request, response) => {
    handle(request, response).catch(() => response.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    baseUrl: `${url}/v1`,
    model(name: string): ModelScript {
      const script = scriptOf(name);
      const controls: ModelScript = {
        queue(...scripted) {
          script.queued.push(...scripted);
          return controls;
        },
        always(rule) {
          script.rule = rule;
          return controls;
        },
      };
      return controls;
    },
    requests,
    requestsFor: (model) => requests.filter((request) => request.model === model),
    reset() {
      requests.length = 0;
      scripts.clear();
    },
    async close() {
      closing = true;
      for (const done of [...pending]) done();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
