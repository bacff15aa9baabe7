import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';

/**
 * Who watches what the decoder reads of a body (the gateway's raw relay,
 * forward/tap-upstream-bytes.ts), reported by the body itself so that no
 * second ReadableStream wraps it on the time-to-first-byte path (decision 0204).
 */
export interface BodyReadTap {
  /** The reader asks for more bytes (every read: nothing is queued inside the stream). */
  onDrained(): void;
  /** Bytes about to reach the reader, in order. */
  onBytes(chunk: Uint8Array): void;
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

/**
 * The body as a WHATWG stream, delivered as it arrives (R8.2) but coalesced:
 * everything the socket delivered while the decoder was busy becomes ONE
 * chunk on its next read, so a burst of small SSE records costs one decode
 * pass instead of one per TCP segment (bench/README.md, burst upstream).
 * Past MAX_READ_AHEAD_BYTES the socket is paused. A socket closed before the
 * end errors the stream like undici's `terminated` — after the bytes already
 * received — and an abort errors it with the abort reason at once; `cancel()`
 * releases the socket.
 */
export interface BodyStream {
  stream: ReadableStream<Uint8Array>;
  /** Errors the body with the abort reason at once (called by the request's one abort listener). */
  abort(): void;
  /** Reports every read and every chunk to `tap` from now on (before the first read). */
  setTap(tap: BodyReadTap): void;
}

export function createBodyStream(response: IncomingMessage, source: Readable, signal: AbortSignal, onSettled: () => void): BodyStream {
  let settled = false;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let queued: Buffer[] = [];
  let queuedBytes = 0;
  let readPending = false;
  let ended = false;
  let pendingError: unknown;
  let tap: BodyReadTap | undefined;
  const settle = (): boolean => {
    if (settled) return false;
    settled = true;
    onSettled();
    return true;
  };
  const deliver = (chunk: Uint8Array): void => {
    tap?.onBytes(chunk);
    controller.enqueue(chunk);
  };
  const takeQueued = (): Uint8Array => {
    const chunk = queued.length === 1 ? queued[0]! : Buffer.concat(queued, queuedBytes);
    queued = [];
    queuedBytes = 0;
    return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  };
  const fail = (error: unknown, immediately: boolean): void => {
    if (!settle()) return;
    response.destroy();
    // Bytes received before the cut still reach the decoder (it may hold a whole record), then the error.
    if (!immediately && queued.length > 0) pendingError = error;
    else {
      queued = [];
      controller.error(error);
    }
  };
  const stream = new ReadableStream<Uint8Array>(
    {
      start(streamController) {
        controller = streamController;
        source.on('data', (chunk: Buffer) => {
          if (settled) return;
          if (readPending) {
            readPending = false;
            deliver(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
            return;
          }
          queued.push(chunk);
          queuedBytes += chunk.byteLength;
          if (queuedBytes >= MAX_READ_AHEAD_BYTES) source.pause();
        });
        source.once('end', () => {
          if (!settle()) return;
          // Bytes still queued go out on the next read (pull), then the end: every read passes through pull.
          if (readPending) controller.close();
          else ended = true;
        });
        source.on('error', (error) => fail(signal.aborted ? createAbortError(signal) : createTerminatedError(error), signal.aborted));
        // A 'close' before the body completed: the upstream dropped the connection mid-body.
        response.once('close', () => {
          if (!response.complete) fail(signal.aborted ? createAbortError(signal) : createTerminatedError(undefined), signal.aborted);
        });
      },
      pull() {
        tap?.onDrained();
        if (queued.length > 0) {
          deliver(takeQueued());
          if (!ended) source.resume();
        } else if (ended) {
          controller.close();
        } else if (pendingError !== undefined) {
          controller.error(pendingError);
          pendingError = undefined;
        } else readPending = true;
      },
      cancel() {
        settle();
        queued = [];
        response.destroy();
      },
    },
    // Pulled only when the decoder waits for bytes: nothing is queued inside the stream itself.
    { highWaterMark: 0 },
  );
  return {
    stream,
    abort: () => fail(createAbortError(signal), true),
    setTap: (watcher) => {
      tap = watcher;
    },
  };
}

