import type { ServerResponse } from 'node:http';
import type { TurnResult } from '@turnguard/core';

/**
 * What the gateway tells its client about a turn (R12.4): how many physical
 * requests it took, whether it recovered or fell back, and whether its usage
 * is the whole turn's (R5.2). As response headers on a JSON answer; in an
 * SSE comment line just before the protocol's end on a stream, whose headers
 * left before the turn was known (decision 0233). Every SSE parser skips
 * comment lines, so an SDK reads the stream unchanged.
 */
export const TURN_HEADERS = {
  physicalRequests: 'x-turnguard-physical-requests',
  recovered: 'x-turnguard-recovered',
  fallback: 'x-turnguard-fallback',
  usageComplete: 'x-turnguard-usage-complete',
} as const;

export interface TurnDisclosure {
  physicalRequests: number;
  recovered: boolean;
  /** Whether a fallback target answered (R11); undefined while the turn cannot say. */
  fallback: boolean | undefined;
  usageComplete: boolean;
}

export function discloseTurn(result: TurnResult): TurnDisclosure {
  return {
    physicalRequests: result.segments.length,
    recovered: result.recovery?.recovered === true,
    // Filled from the turn's fail-over chain once runTurn reports one (R11.7).
    fallback: undefined,
    usageComplete: result.usage.complete,
  };
}

function entries(disclosure: TurnDisclosure): Array<[name: string, value: string]> {
  const list: Array<[string, string]> = [
    [TURN_HEADERS.physicalRequests, String(disclosure.physicalRequests)],
    [TURN_HEADERS.recovered, String(disclosure.recovered)],
  ];
  if (disclosure.fallback !== undefined) list.push([TURN_HEADERS.fallback, String(disclosure.fallback)]);
  list.push([TURN_HEADERS.usageComplete, String(disclosure.usageComplete)]);
  return list;
}

/** Sets the headers on a response whose head has not gone out yet (JSON answers, and failures answered before a stream began). */
export function setTurnHeaders(response: ServerResponse, disclosure: TurnDisclosure): void {
  if (response.headersSent) return;
  for (const [name, value] of entries(disclosure)) response.setHeader(name, value);
}

const PREFIX = 'x-turnguard-';

/** `: turnguard physical-requests=2 recovered=true usage-complete=false`, as its own comment block. */
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
