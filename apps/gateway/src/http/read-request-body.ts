import type { IncomingMessage } from 'node:http';
import { createClientError } from './protocol-error-body.js';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from './json-depth.js';

/**
 * How much of an over-large body is still read (and discarded) before the
 * 413 goes out. Answering while the client is still writing and then closing
 * makes its next write fail (EPIPE/ECONNRESET) before it reads the answer:
 * the openai SDK then sees APIConnectionError and re-uploads. nginx avoids
 * that with lingering close (ngx_http_lingering_close, `lingering_time`);
 * here the rest of the body is drained up to this bound, under the server's
 * request time-out. Beyond it the connection is closed at once.
 */
export const DISCARD_ALLOWANCE_BYTES = 64 * 1024 * 1024;

function tooLarge(limitBytes: number) {
  return createClientError(413, 'GATEWAY_BODY_TOO_LARGE', `The request body is larger than the gateway's limit of ${limitBytes} bytes.`);
}

/** Reads and drops the rest of a refused body; resolves when it ended (or right away past the allowance). */
function discardRest(request: IncomingMessage, alreadyRead: number, allowance: number): Promise<void> {
  return new Promise((resolve) => {
    let seen = alreadyRead;
    const stop = (): void => {
      request.off('data', onData);
      resolve();
    };
    const onData = (part: Buffer): void => {
      seen += part.length;
      if (seen > allowance) stop();
    };
    if (request.complete || seen > allowance) return resolve();
    request.on('data', onData);
    request.once('end', stop);
    request.once('error', stop);
    request.once('close', stop);
  });
}

const ignoreLateError = (): void => undefined;

/**
 * Reads the whole request body. More than `limitBytes` is refused with a 413
 * `TurnError`, after the rest has been drained up to a bound (see
 * DISCARD_ALLOWANCE_BYTES) so the client reads the 413; the rest is never
 * buffered, so a huge upload cannot exhaust memory.
 */
export function readRequestBody(request: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const allowance = limitBytes + DISCARD_ALLOWANCE_BYTES;
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) {
    const drained = declared > allowance ? Promise.resolve() : discardRest(request, 0, allowance);
    return drained.then(() => Promise.reject(tooLarge(limitBytes)));
  }
  return new Promise((resolve, reject) => {
    let parts: Buffer[] = [];
    let size = 0;
    // Cleared once settled: the request lives as long as its stream, and a listener still reaching the
    // bytes (or the promise that holds them) would keep a copy of the whole body per open stream.
    let pending: { resolve(body: Buffer): void; reject(error: unknown): void } | undefined = { resolve, reject };
    const take = (): typeof pending => {
      const taken = pending;
      pending = undefined;
      parts = [];
      request.off('data', onData);
      request.off('error', onError);
      // An 'error' with no listener would throw; a shared no-op keeps nothing of this read alive.
      request.on('error', ignoreLateError);
      return taken;
    };
    const onData = (part: Buffer): void => {
      size += part.length;
      if (size <= limitBytes) {
        parts.push(part);
        return;
      }
      const refused = take();
      void discardRest(request, size, allowance).then(() => refused?.reject(tooLarge(limitBytes)));
    };
    request.on('data', onData);
    request.once('end', () => {
      if (pending === undefined) return; // refused: the 413 follows the drain
      const body = parts.length === 1 ? parts[0]! : Buffer.concat(parts, size);
      take()?.resolve(body);
    });
    const onError = (error: Error): void => take()?.reject(error);
    request.on('error', onError);
  });
}

/**
 * Parses a JSON object body; anything else is a 400 in the caller's protocol
 * shape. V8's JSON.parse accepts any depth, but the recursive code after it
 * (JSON.stringify, deep copies) overflows the stack near 10k levels, which
 * used to surface as a 502 `Unexpected RangeError`: nesting is checked first.
 */
export function parseJsonObject(body: Buffer): Record<string, unknown> {
  if (exceedsJsonDepth(body, MAX_JSON_DEPTH)) {
    throw createClientError(400, 'GATEWAY_JSON_TOO_DEEP', `The request body nests JSON deeper than the gateway's limit of ${MAX_JSON_DEPTH} levels.`);
  }
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    throw createClientError(400, 'GATEWAY_MALFORMED_JSON', 'The request body is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw createClientError(400, 'GATEWAY_MALFORMED_JSON', 'The request body must be a JSON object.');
  }
  return value as Record<string, unknown>;
}
