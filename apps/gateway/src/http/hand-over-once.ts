/**
 * The request body as undici takes it. A string or Buffer body stays on
 * undici's request until the response ends, so every open stream would hold
 * its whole prompt once more (100 KiB per stream for a 100 KiB prompt). An
 * iterable that hands the bytes over once and forgets them is written the
 * same way (with the content-length set here, not chunked) and is not kept.
 */
export function handOverOnce(body: string | null | undefined, headers: Record<string, string>): Iterable<Buffer> | undefined {
  // No body: undici sends `content-length: 0` for a POST, as it did for ''.
  if (body == null || body === '') return undefined;
  const bytes = Buffer.from(body);
  headers['content-length'] = String(bytes.byteLength);
  return new BytesHandedOverOnce(bytes);
}

/**
 * Forgets the bytes as it hands them over. A generator (`yield bytes`) would
 * keep them in its suspended frame until undici asks for the next chunk.
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
