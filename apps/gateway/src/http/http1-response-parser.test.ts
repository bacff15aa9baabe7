import { describe, expect, it } from 'vitest';
import { Http1ParseError, Http1ResponseParser, MAX_HEAD_BYTES, type Http1ResponseHead } from './http1-response-parser.js';

/** Feeds `wire` in the given pieces and records what the parser reported. */
function parse(pieces: readonly string[], options: { headRequest?: boolean; closeAfter?: boolean } = {}) {
  const heads: Http1ResponseHead[] = [];
  const bodies: string[] = [];
  let completed: boolean | undefined;
  const parser = new Http1ResponseParser(
    {
      onHead: (head) => heads.push(head),
      onBody: (bytes) => bodies.push(bytes.toString('latin1')),
      onComplete: (reusable) => {
        completed = reusable;
      },
    },
    options.headRequest,
  );
  for (const piece of pieces) parser.push(Buffer.from(piece, 'latin1'));
  if (options.closeAfter === true) parser.end();
  return { heads, bodies, body: bodies.join(''), completed, done: parser.done };
}

/** Every byte on its own: the worst split a socket can produce. */
const bytewise = (wire: string): string[] => [...wire];

const CHUNKED =
  'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n' +
  '9;name=value\r\ndata: 1\n\n\r\n' +
  '0000009\r\ndata: 2\n\n\r\n' +
  'B\r\ndata: 345\n\n\r\n' +
  '0\r\nx-trailer: t\r\n\r\n';

describe('Http1ResponseParser (decision 0213)', () => {
  it('reads a content-length body split anywhere; the bytes of one push arrive as one call; the connection is reusable', () => {
    const wire = 'HTTP/1.1 200 OK\r\nContent-Length: 11\r\nX-A: 1\r\nx-a: 2\r\n\r\nhello world';
    const whole = parse([wire]);
    expect(whole.heads).toEqual([{ status: 200, headers: { 'content-length': '11', 'x-a': '1, 2' } }]);
    expect(whole.bodies).toEqual(['hello world']);
    expect(whole.completed).toBe(true);
    const split = parse(bytewise(wire));
    expect(split.body).toBe('hello world');
    expect(split.completed).toBe(true);
  });

  it('removes chunk framing (extensions, leading zeros, trailers), split at every byte', () => {
    for (const pieces of [[CHUNKED], bytewise(CHUNKED)]) {
      const result = parse(pieces);
      expect(result.body).toBe('data: 1\n\ndata: 2\n\ndata: 345\n\n');
      expect(result.completed).toBe(true);
    }
    // Two chunks in one read come out as one call (one decode pass downstream).
    expect(parse([CHUNKED]).bodies).toEqual(['data: 1\n\ndata: 2\n\ndata: 345\n\n']);
  });

  it('skips interim 1xx heads and reports the final one', () => {
    const result = parse(['HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 429 Too Many\r\nContent-Length: 2\r\n\r\n{}']);
    expect(result.heads.map((head) => head.status)).toEqual([429]);
    expect(result.body).toBe('{}');
  });

  it('HEAD, 204 and 304 have no body whatever the headers say', () => {
    expect(parse(['HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n'], { headRequest: true })).toMatchObject({ body: '', completed: true });
    expect(parse(['HTTP/1.1 204 No Content\r\n\r\n'])).toMatchObject({ body: '', completed: true });
    expect(parse(['HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\n'])).toMatchObject({ body: '', completed: true });
  });

  it('a body with no length runs to the close and the connection is not reused; nor after Connection: close or HTTP/1.0', () => {
    const open = parse(['HTTP/1.1 200 OK\r\n\r\npart 1 ', 'part 2']);
    expect(open).toMatchObject({ body: 'part 1 part 2', completed: undefined, done: false });
    expect(parse(['HTTP/1.1 200 OK\r\n\r\nall'], { closeAfter: true })).toMatchObject({ body: 'all', completed: false });
    expect(parse(['HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n']).completed).toBe(false);
    expect(parse(['HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n']).completed).toBe(false);
    expect(parse(['HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n']).completed).toBe(true);
  });

  it('transfer-encoding beats content-length (RFC 9112 §6.3), and such a connection is not reused', () => {
    const result = parse(['HTTP/1.1 200 OK\r\nContent-Length: 99\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n']);
    expect(result).toMatchObject({ body: 'abc', completed: false });
  });

  it('bytes after the message mean the connection is not reused', () => {
    expect(parse(['HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA']).completed).toBe(false);
  });

  it('a connection closed before the message is complete is an error', () => {
    expect(() => parse(['HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort'], { closeAfter: true })).toThrow(Http1ParseError);
    expect(() => parse(['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab'], { closeAfter: true })).toThrow(Http1ParseError);
    expect(() => parse(['HTTP/1.1 200'], { closeAfter: true })).toThrow(Http1ParseError);
  });

  it.each([
    ['a status line that is not HTTP/1.x', 'HTTP/2 200\r\n\r\n'],
    ['a status that is not 3 digits', 'HTTP/1.1 20 OK\r\n\r\n'],
    ['an unasked-for 101', 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n'],
    ['obsolete line folding', 'HTTP/1.1 200 OK\r\nX-A: 1\r\n  continued\r\nContent-Length: 0\r\n\r\n'],
    ['a field name that is not a token', 'HTTP/1.1 200 OK\r\nBad Name: 1\r\n\r\n'],
    ['a line with no colon', 'HTTP/1.1 200 OK\r\nnonsense\r\n\r\n'],
    ['content-length that is not a number', 'HTTP/1.1 200 OK\r\nContent-Length: 1e3\r\n\r\n'],
    ['repeated content-lengths that disagree', 'HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab'],
    ['a chunk size that is not hexadecimal', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'],
    ['a chunk not followed by CRLF', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabXX'],
    ['a chunk-size line past 1 KiB (extensions)', `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;${'x'.repeat(2000)}\r\n`],
    ['a bare LF inside a field value', 'HTTP/1.1 200 OK\r\nX-A: a\nTransfer-Encoding: chunked\r\n\r\n'],
    ['a NUL inside a field value', 'HTTP/1.1 200 OK\r\nX-A: a\0b\r\nContent-Length: 0\r\n\r\n'],
  ])('refuses %s with an Http1ParseError', (_name, wire) => {
    expect(() => parse([wire])).toThrow(Http1ParseError);
    expect(() => parse(bytewise(wire))).toThrow(Http1ParseError);
  });

  it('agreeing repeated content-lengths are one length', () => {
    expect(parse(['HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok'])).toMatchObject({ body: 'ok', completed: true });
  });

  it('refuses a head larger than node:http’s default limit, however it is split, without buffering more', () => {
    const huge = `HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(MAX_HEAD_BYTES)}\r\n\r\n`;
    expect(() => parse([huge])).toThrow(/larger than 16384 bytes/);
    const pieces = huge.match(/[\s\S]{1,1000}/g)!;
    expect(() => parse(pieces)).toThrow(Http1ParseError);
  });
});
