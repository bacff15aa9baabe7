import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { BodySource } from './node-body-stream.js';

/**
 * fetch decodes compressed bodies itself; the gateway's transports send no
 * `accept-encoding`, so a compliant upstream answers uncompressed, but a
 * proxy that compresses anyway is still read correctly. The decompressor
 * pauses `body` while its buffer is full (backpressure), and takes its errors.
 */
export function decodeContentEncoding(contentEncoding: string | undefined, body: BodySource): BodySource {
  const encoding = (contentEncoding ?? '').trim().toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip' ? createGunzip() : encoding === 'br' ? createBrotliDecompress() : encoding === 'deflate' ? createInflate() : undefined;
  if (decoder === undefined) return body;
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
