/**
 * An HTTP/1.1 response parser for the gateway's lean upstream client
 * (decision 0213): status line and header fields, then the body framed as
 * RFC 9112 §6.3 says — none (HEAD, 1xx, 204, 304), chunked, content-length,
 * or until the connection closes. Malformed input is an `Http1ParseError`:
 * the connection is never reused after one.
 */

/** node:http's default `--max-http-header-size`: the same limit for the head (and a chunked body's trailer). */
export const MAX_HEAD_BYTES = 16 * 1024;
/** A chunk-size line (hex size plus extensions) longer than this is refused. */
const MAX_CHUNK_LINE_BYTES = 1024;

const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: [^\r\n]*)?$/;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const DIGITS = /^\d+$/;
const CHUNK_SIZE = /^([0-9A-Fa-f]{1,15})[ \t]*(?:;.*)?$/;
const CRLF = 0x0d0a;

export class Http1ParseError extends Error {
  constructor(message: string) {
    super(`Malformed upstream response: ${message}`);
    this.name = 'Http1ParseError';
  }
}

export interface Http1ResponseHead {
  status: number;
  /** Lower-case names; a repeated field's values joined with ", " (fetch's `Headers.get`). */
  headers: Record<string, string>;
}

export interface Http1ResponseHandler {
  onHead(head: Http1ResponseHead): void;
  /** Body bytes (chunk framing removed); the bytes of one `push` arrive as one call. */
  onBody(bytes: Buffer): void;
  /** The message is complete; `reusable` says whether the connection may carry another request. */
  onComplete(reusable: boolean): void;
}

type Stage = 'head' | 'fixed' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailer' | 'until-close' | 'done';

export class Http1ResponseParser {
  #stage: Stage = 'head';
  /** Bytes of an unfinished head, chunk-size line or trailer. */
  #partial: Buffer | undefined;
  #remaining = 0;
  #keepAlive = true;
  #pieces: Buffer[] = [];
  #completed = false;

  constructor(
    private readonly handler: Http1ResponseHandler,
    /** A response to HEAD has no body whatever its headers say. */
    private readonly headRequest = false,
  ) {}

  /** The message needs no more bytes. */
  get done(): boolean {
    return this.#stage === 'done';
  }

  /** Feeds bytes read from the socket; throws `Http1ParseError` on malformed input. */
  push(chunk: Buffer): void {
    const data = this.#partial === undefined ? chunk : Buffer.concat([this.#partial, chunk]);
    this.#partial = undefined;
    let at = 0;
    try {
      while (at < data.length && this.#stage !== 'done') at = this.#step(data, at);
    } finally {
      // The body bytes before a malformed part still go out, ahead of the error (R4.1: nothing received is lost).
      this.#flushBody();
    }
    if (this.#stage === 'done' && at < data.length) {
      // Bytes after the message on a connection we did not pipeline on: never reuse it.
      this.#keepAlive = false;
    }
    if (this.#stage === 'done') this.#complete();
  }

  /** The connection closed: ends a close-delimited body; anything else unfinished is an error. */
  end(): void {
    if (this.#stage === 'until-close') {
      this.#stage = 'done';
      this.#keepAlive = false;
      this.#complete();
      return;
    }
    if (this.#stage !== 'done') throw new Http1ParseError('the connection closed before the message was complete.');
  }

  #complete(): void {
    if (this.#completed) return;
    this.#completed = true;
    this.handler.onComplete(this.#keepAlive);
  }

  #step(data: Buffer, at: number): number {
    switch (this.#stage) {
      case 'head':
        return this.#readHead(data, at);
      case 'fixed':
        return this.#readCounted(data, at, 'done');
      case 'until-close':
        this.#pieces.push(data.subarray(at));
        return data.length;
      case 'chunk-size':
        return this.#readChunkSize(data, at);
      case 'chunk-data':
        return this.#readCounted(data, at, 'chunk-end');
      case 'chunk-end':
        if (data.length - at < 2) return this.#keep(data, at);
        if (data.readUInt16BE(at) !== CRLF) throw new Http1ParseError('a chunk is not followed by CRLF.');
        this.#stage = 'chunk-size';
        return at + 2;
      case 'trailer':
        return this.#readTrailer(data, at);
      case 'done':
        return data.length;
    }
  }

  /** Up to `#remaining` body bytes (a content-length body, or one chunk's data); then `next`. */
  #readCounted(data: Buffer, at: number, next: Stage): number {
    const end = Math.min(data.length, at + this.#remaining);
    this.#pieces.push(data.subarray(at, end));
    this.#remaining -= end - at;
    if (this.#remaining === 0) this.#stage = next;
    return end;
  }

  /**
   * Where `terminator` starts, at most `limit` bytes after `at`; -1 when it has not arrived yet (the rest
   * is kept for the next push). Refuses a head, line or trailer past its limit without buffering more.
   */
  #findEnd(data: Buffer, at: number, terminator: string, limit: number, what: string): number {
    const end = data.indexOf(terminator, at, 'latin1');
    if ((end === -1 ? data.length : end) - at > limit) throw new Http1ParseError(`${what} is larger than ${limit} bytes.`);
    if (end === -1) this.#keep(data, at);
    return end;
  }

  /** Keeps the unread rest for the next push (a line or head split across reads). */
  #keep(data: Buffer, at: number): number {
    this.#partial = Buffer.from(data.subarray(at));
    return data.length;
  }

  #readHead(data: Buffer, at: number): number {
    const end = this.#findEnd(data, at, '\r\n\r\n', MAX_HEAD_BYTES, 'the head');
    if (end === -1) return data.length;
    const lines = data.toString('latin1', at, end).split('\r\n');
    const statusLine = STATUS_LINE.exec(lines[0]!);
    if (statusLine === null) throw new Http1ParseError('the status line is not HTTP/1.x.');
    const status = Number(statusLine[2]);
    const headers = parseFields(lines, 1);
    const next = end + 4;
    if (status >= 100 && status < 200) {
      // 100 Continue, 103 Early Hints…: an interim head; the final one follows. We never ask to upgrade.
      if (status === 101) throw new Http1ParseError('101 Switching Protocols was not asked for.');
      return next;
    }
    const connection = (headers.connection ?? '').toLowerCase();
    this.#keepAlive = statusLine[1] === '1' ? !/\bclose\b/.test(connection) : /\bkeep-alive\b/.test(connection);
    this.#stage = this.#framing(status, headers);
    this.handler.onHead({ status, headers });
    return next;
  }

  /** RFC 9112 §6.3: how the body is delimited. */
  #framing(status: number, headers: Record<string, string>): Stage {
    if (this.headRequest || status === 204 || status === 304) return 'done';
    const transferEncoding = headers['transfer-encoding'];
    if (transferEncoding !== undefined) {
      // A content-length beside transfer-encoding is ignored, and the connection is not reused (§6.3 point 3).
      if (headers['content-length'] !== undefined) this.#keepAlive = false;
      const codings = transferEncoding.toLowerCase().split(',');
      if (codings[codings.length - 1]!.trim() === 'chunked') return 'chunk-size';
      this.#keepAlive = false;
      return 'until-close';
    }
    const contentLength = headers['content-length'];
    if (contentLength !== undefined) {
      // Repeated fields arrive joined; they must all agree (§6.3 point 5).
      const values = new Set(contentLength.split(',').map((value) => value.trim()));
      const [value] = values;
      if (values.size !== 1 || value === undefined || !DIGITS.test(value) || !Number.isSafeInteger(Number(value)))
        throw new Http1ParseError('content-length is not one non-negative integer.');
      this.#remaining = Number(value);
      return this.#remaining === 0 ? 'done' : 'fixed';
    }
    this.#keepAlive = false;
    return 'until-close';
  }

  #readChunkSize(data: Buffer, at: number): number {
    const end = this.#findEnd(data, at, '\r\n', MAX_CHUNK_LINE_BYTES, 'a chunk-size line');
    if (end === -1) return data.length;
    const size = CHUNK_SIZE.exec(data.toString('latin1', at, end));
    if (size === null) throw new Http1ParseError('a chunk size is not hexadecimal.');
    this.#remaining = Number.parseInt(size[1]!, 16);
    this.#stage = this.#remaining === 0 ? 'trailer' : 'chunk-data';
    return end + 2;
  }

  /** After the last chunk: trailer fields (ignored, as fetch does) up to an empty line. */
  #readTrailer(data: Buffer, at: number): number {
    if (data.length - at >= 2 && data.readUInt16BE(at) === CRLF) {
      this.#stage = 'done';
      return at + 2;
    }
    const end = this.#findEnd(data, at, '\r\n\r\n', MAX_HEAD_BYTES, 'the trailer');
    if (end === -1) return data.length;
    parseFields(data.toString('latin1', at, end).split('\r\n'), 0);
    this.#stage = 'done';
    return end + 4;
  }

  #flushBody(): void {
    const pieces = this.#pieces;
    if (pieces.length === 0) return;
    this.#pieces = [];
    const bytes = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
    if (bytes.length > 0) this.handler.onBody(bytes);
  }
}

/** Header (or trailer) field lines from `from` on: `name: value`, names lower-cased, repeats joined. */
function parseFields(lines: readonly string[], from: number): Record<string, string> {
  const fields: Record<string, string> = Object.create(null) as Record<string, string>;
  for (let index = from; index < lines.length; index += 1) {
    const line = lines[index]!;
    const colon = line.indexOf(':');
    // RFC 9112 §5.2: obsolete line folding (a line starting with SP/HTAB) is rejected, not guessed at.
    if (colon <= 0) throw new Http1ParseError('a header line has no field name.');
    const name = line.slice(0, colon);
    if (!TOKEN.test(name)) throw new Http1ParseError('a header field name is not a token.');
    const value = line.slice(colon + 1).trim();
    // RFC 9110 §5.5: NUL, or a CR/LF not ending the line, would let two readers frame the message differently.
    if (/[\0\r\n]/.test(value)) throw new Http1ParseError(`the value of "${name}" contains NUL, CR or LF.`);
    const key = name.toLowerCase();
    const existing = fields[key];
    fields[key] = existing === undefined ? value : `${existing}, ${value}`;
  }
  return fields;
}
