import type { IncomingMessage } from 'node:http';
import { createClientError } from './protocol-error-body.js';

/**
 * Reads the whole request body, refusing more than `limitBytes` with a 413
 * `TurnError` as soon as the limit is crossed (or at once when
 * `content-length` already says so). The rest of an oversized body is
 * discarded, not buffered, so a huge upload cannot exhaust memory.
 */
export function readRequestBody(request: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const tooLarge = () =>
    createClientError(413, 'GATEWAY_BODY_TOO_LARGE', `The request body is larger than the gateway's limit of ${limitBytes} bytes.`);
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) {
    request.resume();
    return Promise.reject(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    let refused = false;
    const onData = (part: Buffer): void => {
      if (refused) return;
      size += part.length;
      if (size > limitBytes) {
        refused = true;
        parts.length = 0;
        reject(tooLarge());
        return;
      }
      parts.push(part);
    };
    request.on('data', onData);
    request.once('end', () => {
      if (!refused) resolve(parts.length === 1 ? parts[0]! : Buffer.concat(parts));
    });
    request.once('error', (error) => {
      if (!refused) reject(error);
    });
  });
}

/** Parses a JSON object body; anything else is a 400 in the caller's protocol shape. */
export function parseJsonObject(body: Buffer): Record<string, unknown> {
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
