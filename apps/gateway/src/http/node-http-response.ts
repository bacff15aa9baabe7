import type { IncomingHttpHeaders } from 'node:http';
import type { ByteStream, FetchResponse, FetchResponseHeaders } from '@turnguard/core';
import type { BodyReadTap, NodeBodyStream } from './node-body-stream.js';

/** Statuses that have no body (fetch gives them a null one). */
export const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([101, 204, 205, 304]);

/** `Headers.get` over node:http's parsed headers (keys already lower-case; repeats joined with ", " like fetch). */
class NodeResponseHeaders implements FetchResponseHeaders {
  constructor(private readonly headers: IncomingHttpHeaders) {}

  get(name: string): string | null {
    const value = this.headers[name.toLowerCase()];
    if (value === undefined) return null;
    return typeof value === 'string' ? value : value.join(', ');
  }

  /** Every header, as WHATWG `Headers.forEach` gives them (the gateway relays them to its client, R8.6). */
  forEach(callback: (value: string, name: string) => void): void {
    for (const [name, value] of Object.entries(this.headers)) {
      if (value !== undefined) callback(typeof value === 'string' ? value : value.join(', '), name);
    }
  }
}

/**
 * What runTurn reads of an upstream response (core's `FetchResponse`), built
 * straight from node:http's response. A WHATWG `Response` + `Headers` per
 * request cost ≈ 35 µs on the gateway's time-to-first-byte path
 * (bench/README.md, gateway section) for fields runTurn never reads.
 */
export class NodeHttpResponse implements FetchResponse {
  readonly ok: boolean;
  readonly headers: FetchResponseHeaders;
  readonly #body: NodeBodyStream | null;

  constructor(
    readonly status: number,
    headers: IncomingHttpHeaders,
    body: NodeBodyStream | null,
  ) {
    this.ok = status >= 200 && status <= 299;
    this.headers = new NodeResponseHeaders(headers);
    this.#body = body;
  }

  get body(): ByteStream | null {
    return this.#body;
  }

  /** Reports the body's reads to `tap` (the raw relay) from the body itself; false when there is no body. */
  tapBody(tap: BodyReadTap): boolean {
    if (this.#body === null) return false;
    this.#body.setTap(tap);
    return true;
  }

  /** The whole body as UTF-8 text (error bodies); rejects like fetch when the body fails. */
  text(): Promise<string> {
    return readBodyText(this.body);
  }
}

/** A body stream read to the end as UTF-8 text ('' for none). */
export async function readBodyText(body: ByteStream | null): Promise<string> {
  if (body === null) return '';
  const decoder = new TextDecoder();
  let text = '';
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    text += decoder.decode(value, { stream: true });
  }
}
