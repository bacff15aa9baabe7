/**
 * What the stream decoders (and runTurn) read of a response body: a WHATWG
 * `ReadableStream<Uint8Array>` satisfies it, and so can a transport's own
 * lighter body. The gateway's node:http transport has one: in Node 20 each
 * `new ReadableStream()` goes through `makeTransferable` (≈ 8–10 µs, on the
 * first-byte path, and leaves the stream in dictionary mode for every read
 * after), decision 0320.
 */
export interface ByteStream {
  readonly locked: boolean;
  getReader(): ByteStreamReader;
  cancel(reason?: unknown): Promise<void>;
}

/**
 * One read's result, declared here rather than as the DOM lib's
 * `ReadableStreamReadResult`: the published `.d.ts` must compile in a Node
 * project with `lib: ["es2023"]` and no DOM (R10.2). The WHATWG result
 * (from the DOM lib or `node:stream/web`) is assignable to it.
 */
export type ByteStreamReadResult = { done: false; value: Uint8Array } | { done: true; value?: Uint8Array | undefined };

/** The default reader's part that decoders use (`ReadableStreamDefaultReader<Uint8Array>` fits). */
export interface ByteStreamReader {
  read(): Promise<ByteStreamReadResult>;
  cancel(reason?: unknown): Promise<void>;
  releaseLock(): void;
}
