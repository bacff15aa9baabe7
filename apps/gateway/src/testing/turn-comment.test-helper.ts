import { expect } from 'vitest';

const TURN_COMMENT = /: turnguard [^\n]*\n\n/g;

/**
 * An SSE body as a client read it, without the turn's comment (R12.4), for
 * byte-for-byte comparisons with what the upstream sent. Asserts there was
 * exactly one, placed just before the stream's last record.
 */
export function withoutTurnComment(body: string): string {
  const comments = [...body.matchAll(TURN_COMMENT)];
  expect(comments, 'one turnguard comment per stream').toHaveLength(1);
  const at = comments[0]!.index;
  const rest = body.slice(at + comments[0]![0].length);
  expect(rest.replace(/\n\n$/, ''), 'the comment comes just before the last record').not.toMatch(/\n\n/);
  return body.slice(0, at) + rest;
}
