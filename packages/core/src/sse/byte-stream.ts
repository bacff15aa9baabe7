/**
 * What the stream decoders (and runTurn) read of a response body: a WHATWG
 * `ReadableStream<Uint8Array>` satisfies it, and so can a transport's own
 * lighter body. The gateway's node:http transport has one: in Node 20 each
 * `new ReadableStream()` goes through `makeTransferable` (≈ 8–10 µs, on the
 * first-byte path, and leaves the stream in dictionary mode for every read
 * after), decision 0205.
 */
export interface ByteStream {
  readonly locked: boolean;
  getReader(): ByteStreamReader;
  cancel(reason?: unknown): Promise<void>;
}

/** The default reader's part that decoders use (`ReadableStreamDefaultReader<Uint8Array>` fits). */
export interface ByteStreamReader {
  read(): Promise<ReadableStreamReadResult<Uint8Array>>;
  cancel(reason?: unknown): Promise<void>;
  releaseLock(): void;
}
