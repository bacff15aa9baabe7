import type { ServerResponse } from 'node:http';

/**
 * Text longer than this goes to the socket in parts of about this many
 * characters, each once the socket took the one before: Node copies a
 * string into a Buffer to write it, and one long record (a base64 image, a
 * 32 MiB delta) would otherwise be held whole a second time until the
 * client read it (R8.2; bench/gateway/relay-record.mjs).
 */
const PART_CHARS = 1024 * 1024;

/** Resolves once the response can take more (or is gone). */
function waitForDrain(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}

/** Where `text` may be cut near `at`: never between the two halves of a surrogate pair. */
function partEnd(text: string, at: number): number {
  const code = text.charCodeAt(at - 1);
  return code >= 0xd800 && code <= 0xdbff ? at + 1 : at;
}

/**
 * Coalesces the SSE text of one burst of records into one `response.write`.
 * The relay writes the records decoded from one upstream network read, and
 * runTurn's events, in a chain of microtasks; writing each as its own HTTP
 * chunk cost one syscall per record (`writev` was the largest single item of
 * the 50-stream profile, bench/README.md). The flush runs on
 * `process.nextTick`, i.e. as soon as that chain settles, so nothing waits for
 * a later network read (R8.2: relayed as it arrives). The response's first
 * chunk goes out at once, with the headers: the client's time to first byte
 * does not wait for the rest of that chain.
 */
export class SseResponseWriter {
  private pending: string[] = [];
  private scheduled = false;
  private started = false;
  /** What is left of a long text being written part by part; later text waits behind it. */
  private rest: string | undefined;
  /** The relay waits on this before it pulls more: the socket is full, or a long text is still going out. */
  private blocked: { promise: Promise<void>; release: () => void } | undefined;
  private endRequested = false;
  /** A write was refused or a long text is going out part by part: only `drain` releases the relay. */
  private awaitingDrain = false;

  constructor(private readonly response: ServerResponse) {}

  /**
   * Queues `chunk` for this tick's write; the response's first chunk is written at once, and the
   * relay waits (`whenWritable`) until it is on the wire: node:http corks the socket on a write
   * until the next tick, so without that wait the first byte would also wait for everything the
   * relay does before its chain of microtasks settles — the rest of a large upstream read (R8.2).
   */
  write(chunk: string): void {
    this.pending.push(chunk);
    if (!this.started) {
      this.started = true;
      this.flush();
      if (this.blocked === undefined) {
        this.blocked = createBlock();
        // Queued after node:http's own uncork (the same tick queue): the bytes are with the socket by then.
        process.nextTick(() => {
          if (!this.awaitingDrain) this.unblock();
        });
      }
      return;
    }
    if (this.scheduled || this.rest !== undefined) return;
    this.scheduled = true;
    process.nextTick(() => this.flush());
  }

  /**
   * Resolves once the client socket can take more (backpressure): the relay
   * awaits this before pulling the next event, so a slow client slows the
   * upstream read instead of growing memory.
   */
  whenWritable(): Promise<void> | undefined {
    return this.blocked?.promise;
  }

  /** Drops what is queued and closes the connection (nothing well-formed can follow). */
  destroy(): void {
    this.pending = [];
    this.rest = undefined;
    this.response.destroy();
    this.unblock();
  }

  /** Writes what is queued and ends the response; a text tail goes out with the final chunk (one write, not two). */
  end(): void {
    if (this.rest !== undefined) {
      this.endRequested = true;
      return;
    }
    const text = this.takePending();
    if (this.response.destroyed) return;
    if (text.length > PART_CHARS) {
      this.endRequested = true;
      this.send(text);
      return;
    }
    if (text === '') this.response.end();
    else this.response.end(text);
  }

  private takePending(): string {
    const chunks = this.pending;
    this.pending = [];
    return chunks.length === 1 ? chunks[0]! : chunks.join('');
  }

  private flush(): void {
    this.scheduled = false;
    if (this.rest !== undefined || this.pending.length === 0) return;
    const text = this.takePending();
    if (this.response.destroyed || text === '') return;
    this.send(text);
  }

  /** Writes `text` (its first part, when long), and waits for the socket when it is full or more of `text` is left. */
  private send(text: string): void {
    const cut = text.length > PART_CHARS ? partEnd(text, PART_CHARS) : text.length;
    const writable = this.response.write(cut === text.length ? text : text.slice(0, cut));
    this.rest = cut === text.length ? undefined : text.slice(cut);
    if (writable && this.rest === undefined) return;
    this.blocked ??= createBlock();
    this.awaitingDrain = true;
    void waitForDrain(this.response).then(() => this.onDrain());
  }

  private onDrain(): void {
    this.awaitingDrain = false;
    if (this.response.destroyed) {
      this.rest = undefined;
      this.unblock();
      return;
    }
    const rest = this.rest;
    if (rest !== undefined) {
      this.send(rest);
      if (this.rest !== undefined) return;
    }
    if (this.pending.length > 0) this.flush();
    if (this.rest !== undefined) return;
    if (this.endRequested) {
      this.endRequested = false;
      this.end();
    }
    if (this.rest === undefined && this.response.writableNeedDrain !== true) this.unblock();
  }

  private unblock(): void {
    const blocked = this.blocked;
    this.blocked = undefined;
    blocked?.release();
  }
}

function createBlock(): { promise: Promise<void>; release: () => void } {
  let release!: () => void;
  const promise = new Promise<void>((resolve) => (release = resolve));
  return { promise, release };
}
