import type { ServerResponse } from 'node:http';

type Chunk = string | Uint8Array;

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

/**
 * Coalesces the SSE text of one burst of events into one `response.write`.
 * runTurn hands over the events decoded from one upstream network read in a
 * chain of microtasks; writing each as its own HTTP chunk cost one syscall
 * per event (`writev` was the largest single item of the 50-stream profile,
 * bench/README.md). The flush runs on `process.nextTick`, i.e. as soon as
 * that microtask chain settles, so nothing waits for a later network read
 * (R8.2: relayed as it arrives). The response's first chunk goes out at
 * once, with the headers: the client's time to first byte does not wait for
 * the rest of that chain (decision 0212).
 */
export class SseResponseWriter {
  private pending: Chunk[] = [];
  private scheduled = false;
  private started = false;
  private drained: Promise<void> | undefined;

  constructor(private readonly response: ServerResponse) {}

  /** Queues `chunk` for this tick's write; the response's first chunk is written at once. */
  write(chunk: Chunk): void {
    if (!this.started) {
      this.started = true;
      this.pending.push(chunk);
      this.flush();
      return;
    }
    this.pending.push(chunk);
    if (this.scheduled) return;
    this.scheduled = true;
    // The writer as the tick's argument: no bound flush per response, held for the whole stream (decision 0293).
    process.nextTick(SseResponseWriter.flushLater, this);
  }

  /**
   * Resolves once the client socket can take more (backpressure): the relay
   * awaits this before pulling the next event, so a slow client slows the
   * upstream read instead of growing memory.
   */
  whenWritable(): Promise<void> | undefined {
    return this.drained;
  }

  /** Drops what is queued and closes the connection (nothing well-formed can follow). */
  destroy(): void {
    this.pending = [];
    this.response.destroy();
  }

  /** Writes what is queued and ends the response; a text tail goes out with the final chunk (one write, not two). */
  end(): void {
    const chunks = this.pending;
    this.pending = [];
    if (this.response.destroyed) return;
    if (chunks.length > 0 && chunks.every((chunk) => typeof chunk === 'string')) {
      this.response.end(chunks.join(''));
      return;
    }
    this.pending = chunks;
    this.flush();
    this.response.end();
  }

  private static flushLater(writer: SseResponseWriter): void {
    writer.flush();
  }

  private flush(): void {
    this.scheduled = false;
    const chunks = this.pending;
    if (chunks.length === 0) return;
    this.pending = [];
    const { response } = this;
    if (response.destroyed) return;
    let writable: boolean;
    if (chunks.length === 1) writable = response.write(chunks[0]!);
    else if (chunks.every((chunk) => typeof chunk === 'string')) writable = response.write(chunks.join(''));
    else {
      response.cork();
      writable = true;
      for (const chunk of chunks) writable = response.write(chunk) && writable;
      response.uncork();
    }
    if (!writable && this.drained === undefined) {
      this.drained = waitForDrain(response).then(() => {
        this.drained = undefined;
      });
    }
  }
}
