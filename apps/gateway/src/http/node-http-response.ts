import type { ByteStream, FetchResponse, FetchResponseHeaders } from '@turnguard/core';
import type { NodeBodyStream } from './node-body-stream.js';

/** Statuses that have no body (fetch gives them a null one). */
export const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([101, 204, 205, 304]);

/** Response headers as undici's `request()` gives them: lower-case names, a repeated field as an array. */
export type UpstreamResponseHeaders = Record<string, string | string[] | undefined>;

/**
 * `Headers.get` over undici's parsed headers (repeats joined with ", " like
 * fetch), plus every field as received for a relay that forwards them.
 */
export class NodeResponseHeaders implements FetchResponseHeaders {
  constructor(private readonly headers: UpstreamResponseHeaders) {}

  get(name: string): string | null {
    const value = this.headers[name.toLowerCase()];
    if (value === undefined) return null;
    return typeof value === 'string' ? value : value.join(', ');
  }

  /** Like `Headers.forEach`: each field once, repeats joined with ", " (`set-cookie` too: use `entries()` to keep them apart). */
  forEach(callback: (value: string, name: string) => void): void {
    for (const name in this.headers) {
      const value = this.get(name);
      if (value !== null) callback(value, name);
    }
  }

  /** Every field line as received, in order, a repeated field once per value (`set-cookie`, `link`…). */
  *entries(): IterableIterator<[name: string, value: string]> {
    for (const [name, value] of Object.entries(this.headers)) {
      if (value === undefined) continue;
      if (typeof value === 'string') yield [name, value];
      else for (const item of value) yield [name, item];
    }
  }
}

/**
 * What runTurn reads of an upstream response (core's `FetchResponse`), built
 * straight from undici's `request()` result. A WHATWG `Response` + `Headers` per
 * request cost ≈ 35 µs on the gateway's time-to-first-byte path
 * (bench/README.md, gateway section) for fields runTurn never reads.
 */
export class NodeHttpResponse implements FetchResponse {
  readonly ok: boolean;
  readonly headers: NodeResponseHeaders;
  readonly #body: NodeBodyStream | null;

  constructor(
    readonly status: number,
    headers: UpstreamResponseHeaders,
    body: NodeBodyStream | null,
  ) {
    this.ok = status >= 200 && status <= 299;
    this.headers = new NodeResponseHeaders(headers);
    this.#body = body;
  }

  get body(): ByteStream | null {
    return this.#body;
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
