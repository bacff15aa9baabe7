/**
 * The request body as undici takes it. A string or Buffer body stays on
 * undici's request until the response ends, so every open stream would hold
 * its whole prompt once more (100 KiB per stream for a 100 KiB prompt). An
 * iterable that hands the bytes over once and forgets them is written the
 * same way (with the content-length set here, not chunked) and is not kept.
 */
export function handOverOnce(body: string | Uint8Array | null | undefined, headers: Record<string, string>): Iterable<Buffer> | undefined {
  // No body: undici sends `content-length: 0` for a POST, as it did for ''.
  if (body == null || body.length === 0) return undefined;
  // Bytes (the client's own body) are sent as they are: a view on them, not a copy.
  const bytes = typeof body === 'string' ? Buffer.from(body) : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  headers['content-length'] = String(bytes.byteLength);
  return new BytesHandedOverOnce(bytes);
}

/**
 * Forgets the bytes as it hands them over. A generator (`yield bytes`) keeps
 * its local `bytes` until undici asks it for the next chunk; this lets go of
 * them in the call that returns them, so once undici has written the prompt
 * nothing here holds it (`request-body-retention.test.ts`, decision 0320).
 */
class BytesHandedOverOnce implements Iterable<Buffer>, Iterator<Buffer, undefined> {
  #bytes: Buffer | undefined;

  constructor(bytes: Buffer) {
    this.#bytes = bytes;
  }

  [Symbol.iterator](): this {
    return this;
  }

  next(): IteratorResult<Buffer, undefined> {
    const bytes = this.#bytes;
    this.#bytes = undefined;
    return bytes === undefined ? { done: true, value: undefined } : { done: false, value: bytes };
  }
}
