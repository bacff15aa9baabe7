import type { ByteStream, ByteStreamReader } from '@turnguard/core';

/**
 * The response body a stream reads (undici's BodyReadable, a node Readable):
 * `close` before it ended is a cut.
 */
export interface BodyMessage {
  readonly readableEnded: boolean;
  once(event: 'close', listener: () => void): unknown;
  destroy(): unknown;
}

/** Where the body's bytes come from: the message itself, or a decompressor fed by it. */
export interface BodySource {
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  once(event: 'end', listener: () => void): unknown;
  pause(): unknown;
  resume(): unknown;
}

/** What a NodeBodyStream asks of whoever delivers its bytes. */
export interface BodyControl {
  /** Stop delivering for now (read ahead past MAX_READ_AHEAD_BYTES). */
  pause(): void;
  resume(): void;
  /** The reader cancelled, or the body failed: the connection is dropped, never reused. */
  destroy(): void;
}

/**
 * The shape undici's fetch gives a body whose socket closed mid-stream:
 * `TypeError: terminated` with the socket error as `cause` (reference/toolchain.md,
 * measured). classifyThrownError reads it as a retryable transport error
 * (R1.1), and the decoders propagate it like any stream error.
 */
function createTerminatedError(cause: unknown): TypeError {
  const socketError = cause ?? Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
  return new TypeError('terminated', { cause: socketError });
}

export function createAbortError(signal: AbortSignal): unknown {
  // fetch rejects with the signal's reason when it has one, else a DOMException AbortError.
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/** Bytes read ahead of the decoder before the socket is paused (backpressure). */
const MAX_READ_AHEAD_BYTES = 1024 * 1024;

const DONE: ReadableStreamReadResult<Uint8Array> = Object.freeze({ done: true, value: undefined });

type Waiter = { resolve: (result: ReadableStreamReadResult<Uint8Array>) => void; reject: (error: unknown) => void };

/**
 * An upstream body as core's `ByteStream` (what the decoders read), not a
 * WHATWG ReadableStream: Node 20 builds those through `makeTransferable`,
 * ≈ 8–10 µs per response on the first-byte path, and every read of one then
 * goes through the webstreams machinery (decision 0320). Its behaviour is a
 * default reader's where the decoders and runTurn can tell:
 * - delivered as it arrives (R8.2) but coalesced: everything the socket
 *   delivered while the decoder was busy is ONE chunk on its next read, so a
 *   burst of small SSE records costs one decode pass instead of one per TCP
 *   segment (bench/README.md, burst upstream); past MAX_READ_AHEAD_BYTES the
 *   socket is paused;
 * - a socket closed before the end errors the body like undici's
 *   `terminated`, after the bytes already received; an abort errors it with
 *   the abort reason at once; after an error every read rejects with it;
 * - `cancel()` releases the socket and ends pending reads; one reader at a
 *   time (`getReader()` on a locked body throws, as WHATWG's does).
 */
export class NodeBodyStream implements ByteStream, ByteStreamReader {
  readonly #control: BodyControl;
  readonly #signal: AbortSignal;
  #settled = false;
  /** No more bytes will arrive: the body ended (queued bytes still go out first) or was cancelled. */
  #ended = false;
  #locked = false;
  #queued: Buffer[] = [];
  #queuedBytes = 0;
  #waiters: Waiter[] = [];
  /** Set when the socket failed with bytes still queued: delivered after them. */
  #pendingError: { error: unknown } | undefined;
  #error: { error: unknown } | undefined;

  /**
   * Fed through `receive`, `complete` and `fail` by whoever delivers the bytes:
   * the gateway's undici handler calls them directly (no emitter and listeners
   * per response for an open stream to hold), a decompressor through
   * `readBodyEvents`.
   */
  constructor(control: BodyControl, signal: AbortSignal) {
    this.#control = control;
    this.#signal = signal;
  }

  /** The body failed: a socket error (`cause`), or a close before its end (`undefined`). An abort wins over either. */
  fail(cause: unknown): void {
    const aborted = this.#signal.aborted;
    this.#fail(aborted ? createAbortError(this.#signal) : createTerminatedError(cause), aborted);
  }

  get locked(): boolean {
    return this.#locked;
  }

  getReader(): ByteStreamReader {
    if (this.#locked) throw new TypeError('The body is locked to a reader.');
    this.#locked = true;
    return this;
  }

  releaseLock(): void {
    this.#locked = false;
  }

  read(): Promise<ReadableStreamReadResult<Uint8Array>> {
    if (this.#error !== undefined) return Promise.reject(this.#error.error);
    if (this.#queuedBytes > 0) {
      const chunk = this.#takeQueued();
      // Settled (ended, failed, cancelled): the socket is done, nothing to resume.
      if (!this.#settled) this.#control.resume();
      return Promise.resolve(this.#deliver(chunk));
    }
    if (this.#ended) return Promise.resolve(DONE);
    if (this.#pendingError !== undefined) {
      this.#error = this.#pendingError;
      this.#pendingError = undefined;
      return Promise.reject(this.#error.error);
    }
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  cancel(): Promise<void> {
    this.#settle();
    this.#queued = [];
    this.#queuedBytes = 0;
    this.#ended = true;
    this.#control.destroy();
    for (const waiter of this.#takeWaiters()) waiter.resolve(DONE);
    return Promise.resolve();
  }

  /** Bytes of the body, in order. */
  receive(chunk: Buffer): void {
    if (this.#settled) return;
    const waiter = this.#waiters.shift();
    if (waiter !== undefined) {
      waiter.resolve(this.#deliver(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength)));
      return;
    }
    this.#queued.push(chunk);
    this.#queuedBytes += chunk.byteLength;
    if (this.#queuedBytes >= MAX_READ_AHEAD_BYTES) this.#control.pause();
  }

  /** The body ended. */
  complete(): void {
    if (!this.#settle()) return;
    this.#ended = true;
    // Bytes still queued go out on the next read, then the end.
    for (const waiter of this.#takeWaiters()) waiter.resolve(DONE);
  }

  #fail(error: unknown, immediately: boolean): void {
    if (!this.#settle()) return;
    this.#control.destroy();
    // Bytes received before the cut still reach the decoder (it may hold a whole record), then the error.
    if (!immediately && this.#queuedBytes > 0) {
      this.#pendingError = { error };
      return;
    }
    this.#queued = [];
    this.#queuedBytes = 0;
    this.#error = { error };
    for (const waiter of this.#takeWaiters()) waiter.reject(error);
  }

  #settle(): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    return true;
  }

  #deliver(chunk: Uint8Array): ReadableStreamReadResult<Uint8Array> {
    return { done: false, value: chunk };
  }

  #takeQueued(): Uint8Array {
    const queued = this.#queued;
    const chunk = queued.length === 1 ? queued[0]! : Buffer.concat(queued, this.#queuedBytes);
    this.#queued = [];
    this.#queuedBytes = 0;
    return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  }

  #takeWaiters(): Waiter[] {
    const waiters = this.#waiters;
    this.#waiters = [];
    return waiters;
  }
}

/**
 * A NodeBodyStream fed by events: `source` (a decompressor, or a node
 * Readable) brings the bytes, and `message` closing before it ended is a cut.
 */
export function readBodyEvents(message: BodyMessage, source: BodySource, signal: AbortSignal): NodeBodyStream {
  const stream = new NodeBodyStream(
    { pause: () => void source.pause(), resume: () => void source.resume(), destroy: () => void message.destroy() },
    signal,
  );
  source.on('data', (chunk: Buffer) => stream.receive(chunk));
  source.once('end', () => stream.complete());
  source.on('error', (error) => stream.fail(error));
  // A 'close' before the body completed: the upstream dropped the connection mid-body.
  message.once('close', () => {
    if (!message.readableEnded) stream.fail(undefined);
  });
  return stream;
}
