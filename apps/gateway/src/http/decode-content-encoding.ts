import { Transform, type TransformCallback } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';
import type { BodySource } from './node-body-stream.js';

/**
 * `deflate` is zlib-wrapped by the RFC, but servers also send raw deflate;
 * undici's fetch tells them apart by the first byte (a zlib header has
 * compression method 8 in its low nibble: lib/web/fetch/index.js), and so do we.
 */
class DeflateDecoder extends Transform {
  #inflate: Transform | undefined;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (this.#inflate === undefined) {
      const inflate = (chunk[0]! & 0x0f) === 0x08 ? createInflate() : createInflateRaw();
      inflate.on('data', (data: Buffer) => this.push(data));
      inflate.on('error', (error) => this.destroy(error));
      this.#inflate = inflate;
    }
    this.#inflate.write(chunk, () => callback());
  }

  override _flush(callback: TransformCallback): void {
    if (this.#inflate === undefined) {
      callback();
      return;
    }
    this.#inflate.once('end', () => callback());
    this.#inflate.end();
  }
}

function createDecoder(coding: string): Transform | undefined {
  if (coding === 'gzip' || coding === 'x-gzip') return createGunzip();
  if (coding === 'br') return createBrotliDecompress();
  if (coding === 'deflate') return new DeflateDecoder();
  return undefined;
}

/** `body` through `decoder`: the decoder pauses `body` while its buffer is full (backpressure) and takes its errors. */
function feed(body: BodySource, decoder: Transform): BodySource {
  body.on('data', (chunk) => {
    if (!decoder.write(chunk)) {
      body.pause();
      decoder.once('drain', () => body.resume());
    }
  });
  body.once('end', () => decoder.end());
  body.on('error', (error) => decoder.destroy(error));
  return decoder;
}

/**
 * fetch decodes compressed bodies itself; the gateway sends no
 * `accept-encoding`, so a compliant upstream answers uncompressed, but a
 * proxy that compresses anyway is still read correctly. Codings are listed
 * in the order they were applied (RFC 9110 §8.4), so `gzip, gzip` is undone
 * last first; a body with any coding we do not know is passed as sent, as
 * fetch does. Returns the decoders in the order the body goes through them,
 * none when it passes as sent.
 */
export function createContentDecoders(contentEncoding: string | string[] | undefined): Transform[] {
  // Nearly every body: no header at all, nothing to parse.
  if (contentEncoding === undefined) return [];
  const header = Array.isArray(contentEncoding) ? contentEncoding.join(',') : contentEncoding;
  const codings = header
    .toLowerCase()
    .split(',')
    .map((coding) => coding.trim())
    .filter((coding) => coding !== '' && coding !== 'identity');
  const decoders = codings.map(createDecoder);
  if (decoders.length === 0 || decoders.some((decoder) => decoder === undefined)) return [];
  return (decoders as Transform[]).reverse();
}

/** `body` through `decoders` (createContentDecoders), each feeding the next. */
export function decodeThrough(body: BodySource, decoders: readonly Transform[]): BodySource {
  let source = body;
  for (const decoder of decoders) source = feed(source, decoder);
  return source;
}
