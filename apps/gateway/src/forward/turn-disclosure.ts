import type { ServerResponse } from 'node:http';
import type { TurnResult } from '@turnguard/core';
import { isModelName, UNRECOGNIZED } from '../metrics/bounded-labels.js';

/**
 * What the gateway tells its client about a turn (R12.4): how many physical
 * requests it took, whether it recovered or fell back (how many times, and
 * which model answered), whether an answer was continued (R11.6), and
 * whether its usage is the whole turn's (R5.2). As response headers on a JSON answer; in an
 * SSE comment line just before the protocol's end on a stream, whose headers
 * left before the turn was known (decision 0233). Every SSE parser skips
 * comment lines, so an SDK reads the stream unchanged.
 */
export const TURN_HEADERS = {
  physicalRequests: 'x-turnguard-physical-requests',
  recovered: 'x-turnguard-recovered',
  fallback: 'x-turnguard-fallback',
  fallbackMoves: 'x-turnguard-fallback-moves',
  answeredBy: 'x-turnguard-answered-by',
  continued: 'x-turnguard-continued',
  usageComplete: 'x-turnguard-usage-complete',
} as const;

export interface TurnDisclosure {
  physicalRequests: number;
  recovered: boolean;
  /**
   * Whether the turn moved to another entry of its fail-over chain (R11.7: a `fallback`); undefined for a
   * turn run without a chain. A continuation sent elsewhere is a continuation, not a move, as core counts it.
   */
  fallback: boolean | undefined;
  /** How many times it moved, when it did. */
  fallbackMoves: number | undefined;
  /**
   * The model whose answer ended the turn (R11.7: the one the answer's end came from, a continuation's
   * target included); absent when no model answered. A model name or `unrecognized`, never text.
   */
  answeredBy: string | undefined;
  /** Whether a mid-answer continuation was sent (R11.6); undefined without a chain. */
  continued: boolean | undefined;
  usageComplete: boolean;
}

export function discloseTurn(result: TurnResult): TurnDisclosure {
  const chained = result.chain !== undefined;
  const moves = result.fallbacks ?? 0;
  const answered = chained && result.outcome === 'ok' && result.model !== undefined;
  return {
    physicalRequests: result.segments.length,
    recovered: result.recovery?.recovered === true,
    fallback: chained ? moves > 0 : undefined,
    fallbackMoves: moves > 0 ? moves : undefined,
    // A model named in the client's x-turnguard-fallbacks header is its own text: echoed only when it is a model name (a header value cannot hold a line break).
    answeredBy: answered ? (isModelName(result.model!) ? result.model : UNRECOGNIZED) : undefined,
    continued: chained ? result.continued === true : undefined,
    usageComplete: result.usage.complete,
  };
}

function entries(disclosure: TurnDisclosure): Array<[name: string, value: string]> {
  const list: Array<[string, string]> = [
    [TURN_HEADERS.physicalRequests, String(disclosure.physicalRequests)],
    [TURN_HEADERS.recovered, String(disclosure.recovered)],
  ];
  // Absent, never a guess, when the turn ran without a chain (decision 0442).
  if (disclosure.fallback !== undefined) list.push([TURN_HEADERS.fallback, String(disclosure.fallback)]);
  if (disclosure.fallbackMoves !== undefined) list.push([TURN_HEADERS.fallbackMoves, String(disclosure.fallbackMoves)]);
  if (disclosure.answeredBy !== undefined) list.push([TURN_HEADERS.answeredBy, disclosure.answeredBy]);
  if (disclosure.continued !== undefined) list.push([TURN_HEADERS.continued, String(disclosure.continued)]);
  list.push([TURN_HEADERS.usageComplete, String(disclosure.usageComplete)]);
  return list;
}

/** Sets the headers on a response whose head has not gone out yet (JSON answers, and failures answered before a stream began). */
export function setTurnHeaders(response: ServerResponse, disclosure: TurnDisclosure): void {
  if (response.headersSent) return;
  for (const [name, value] of entries(disclosure)) response.setHeader(name, value);
}

const PREFIX = 'x-turnguard-';

/** `: turnguard physical-requests=2 recovered=true fallback=false continued=false usage-complete=false`, as its own comment block. */
export function turnComment(disclosure: TurnDisclosure): string {
  const pairs = entries(disclosure).map(([name, value]) => `${name.slice(PREFIX.length)}=${value}`);
  return `: turnguard ${pairs.join(' ')}\n\n`;
}

/**
 * `text` (whole SSE records the encoder wrote, each ending in a blank line)
 * with `comment` placed before its last record: the protocol's end (Chat's
 * `[DONE]`, Messages' `message_stop` or error, Responses' terminal event).
 */
export function beforeLastRecord(text: string, comment: string): string {
  if (text === '') return comment;
  const lastBreak = text.lastIndexOf('\n\n', text.length - 3);
  const start = lastBreak < 0 ? 0 : lastBreak + 2;
  return text.slice(0, start) + comment + text.slice(start);
}
