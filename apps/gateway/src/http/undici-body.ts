import { EventEmitter } from 'node:events';
import { createContentDecoders, decodeThrough } from './decode-content-encoding.js';
import { NodeBodyStream, readBodyEvents, type BodyControl, type BodyMessage, type BodySource } from './node-body-stream.js';

/** What the dispatch handler feeds a response body through (undici's onData, onComplete, onError). */
export interface BodyFeed {
  /** false: undici pauses the socket until the body is resumed. */
  push(chunk: Buffer): boolean;
  end(): void;
  fail(error: Error): void;
}

/** undici's side of a body: pausing is undici's (onData returns false, then `resume`); destroying aborts the request. */
class UndiciFlow implements BodyControl {
  paused = false;
  /** The body ended or failed: nothing to resume or abort any more. */
  done = false;

  constructor(
    private readonly resumeSocket: () => void,
    private readonly abortRequest: (reason: Error) => void,
  ) {}

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    if (!this.done) this.resumeSocket();
  }

  /** The reader cancelled, or the body failed: undici drops the connection, never reuses it. */
  destroy(): void {
    if (!this.done) this.abortRequest(new Error('The response body was cancelled.'));
  }

  /** Marks the body settled; false when it already was (a failure after the end changes nothing). */
  settle(): boolean {
    if (this.done) return false;
    this.done = true;
    return true;
  }
}

/**
 * An uncompressed body (nearly every one: the gateway sends no
 * `accept-encoding`) goes straight into its NodeBodyStream: no emitter and
 * listeners in between for every open stream to hold while it is read.
 */
class DirectBody implements BodyFeed {
  readonly stream: NodeBodyStream;

  constructor(
    private readonly flow: UndiciFlow,
    signal: AbortSignal,
  ) {
    this.stream = new NodeBodyStream(flow, signal);
  }

  push(chunk: Buffer): boolean {
    this.stream.receive(chunk);
    return !this.flow.paused;
  }

  end(): void {
    if (this.flow.settle()) this.stream.complete();
  }

  fail(error: Error): void {
    if (this.flow.settle()) this.stream.fail(error);
  }
}

/** A compressed body as a node-style emitter, for the decompressors in front of its NodeBodyStream. */
class EmittedBody extends EventEmitter implements BodyFeed, BodyMessage, BodySource {
  readableEnded = false;

  constructor(private readonly flow: UndiciFlow) {
    super();
  }

  push(chunk: Buffer): boolean {
    this.emit('data', chunk);
    return !this.flow.paused;
  }

  end(): void {
    if (!this.flow.settle()) return;
    this.readableEnded = true;
    this.emit('end');
    this.emit('close');
  }

  fail(error: Error): void {
    if (!this.flow.settle()) return;
    this.emit('error', error);
    this.emit('close');
  }

  pause(): this {
    this.flow.pause();
    return this;
  }

  resume(): this {
    this.flow.resume();
    return this;
  }

  destroy(): this {
    this.flow.destroy();
    return this;
  }
}

/**
 * A response body for undici's handler to feed, and the stream runTurn reads,
 * content-decoded like fetch's (gzip, deflate raw or zlib, br, stacked).
 */
export function createUndiciBody(
  contentEncoding: string | string[] | undefined,
  resumeSocket: () => void,
  abortRequest: (reason: Error) => void,
  signal: AbortSignal,
): { feed: BodyFeed; stream: NodeBodyStream } {
  const flow = new UndiciFlow(resumeSocket, abortRequest);
  const decoders = createContentDecoders(contentEncoding);
  if (decoders.length === 0) {
    const direct = new DirectBody(flow, signal);
    return { feed: direct, stream: direct.stream };
  }
  const emitted = new EmittedBody(flow);
  return { feed: emitted, stream: readBodyEvents(emitted, decodeThrough(emitted, decoders), signal) };
}
