import { connect, type Socket } from 'node:net';

/** Where a pooled connection goes: plain TCP (the lean client serves `http:` upstreams, decision 0213). */
export interface Http1Origin {
  host: string;
  port: number;
  /** `host:port`, the pool's key. */
  key: string;
}

/** Idle connections kept per origin, as node:http's Agent (`maxFreeSockets`). */
const MAX_FREE_PER_ORIGIN = 256;

/**
 * Keep-alive TCP connections per origin, last used first (a warm
 * connection, and idle ones left to the server's keep-alive timeout, as
 * node:http's Agent with `scheduling: 'lifo'`). An idle connection that the
 * server closes, errors or sends anything on, or that is past its idle time,
 * is dropped, never handed out; idle connections do not keep the process alive.
 */
export class Http1ConnectionPool {
  readonly #free = new Map<string, Socket[]>();
  readonly #idleWatchers = new WeakMap<Socket, () => void>();
  readonly #expiries = new WeakMap<Socket, number>();
  readonly #open = new Set<Socket>();
  #closed = false;

  /** A free connection to `origin`, or a new one (writes made while it connects are queued by node:net). */
  acquire(origin: Http1Origin): Socket {
    const free = this.#free.get(origin.key);
    const now = Date.now();
    for (let reused = free?.pop(); reused !== undefined; reused = free?.pop()) {
      this.#stopWatching(reused);
      // Past the server's keep-alive timeout the FIN may cross our request: never write into that race.
      if ((this.#expiries.get(reused) ?? 0) <= now) {
        reused.destroy();
        continue;
      }
      reused.ref();
      return reused;
    }
    const socket = connect({ host: origin.host, port: origin.port, noDelay: true, keepAlive: true });
    this.#open.add(socket);
    socket.once('close', () => this.#open.delete(socket));
    return socket;
  }

  /**
   * The exchange on `socket` is over: kept for `idleMs` (from the server's keep-alive hint) for the next
   * request, or closed at once when that is 0 — as it is after an incomplete or non-reusable message — or
   * when part of the request is still unsent (an early answer, a 413, while a large body was going out).
   */
  release(socket: Socket, origin: Http1Origin, idleMs: number): void {
    let free = this.#free.get(origin.key);
    const unusable = idleMs <= 0 || this.#closed || socket.destroyed || !socket.writable || socket.writableLength > 0;
    if (unusable || (free?.length ?? 0) >= MAX_FREE_PER_ORIGIN) {
      socket.destroy();
      return;
    }
    if (free === undefined) {
      free = [];
      this.#free.set(origin.key, free);
    }
    const list = free;
    const drop = (): void => {
      this.#stopWatching(socket);
      const index = list.indexOf(socket);
      if (index !== -1) list.splice(index, 1);
      socket.destroy();
    };
    // While idle: the server's FIN, a reset, or unsolicited bytes all mean the connection is gone.
    socket.on('end', drop);
    socket.on('close', drop);
    socket.on('error', drop);
    socket.on('data', drop);
    this.#idleWatchers.set(socket, drop);
    this.#expiries.set(socket, Date.now() + idleMs);
    socket.unref();
    // A body paused for backpressure must not leave an idle connection deaf to the server's FIN.
    socket.resume();
    list.push(socket);
  }

  /** Closes every connection, idle or in use (gateway close). */
  destroy(): void {
    this.#closed = true;
    for (const socket of this.#open) socket.destroy();
    this.#open.clear();
    this.#free.clear();
  }

  #stopWatching(socket: Socket): void {
    const drop = this.#idleWatchers.get(socket);
    if (drop === undefined) return;
    this.#idleWatchers.delete(socket);
    socket.off('end', drop);
    socket.off('close', drop);
    socket.off('error', drop);
    socket.off('data', drop);
  }
}
