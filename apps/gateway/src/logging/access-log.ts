import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TurnResult } from '@turnguard/core';
import type { Logger } from 'pino';

/** What a request's handler tells the access log; never content or credentials (R8.11, R8.5). */
interface AccessNotes {
  model?: string | undefined;
  turn?: Promise<TurnResult>;
  outcome?: string;
  /** Physical upstream requests made outside a turn (a pass-through route, R8.8). */
  physicalRequests?: number;
}

const notes = new WeakMap<ServerResponse, AccessNotes>();

function notesOf(response: ServerResponse): AccessNotes {
  let entry = notes.get(response);
  if (entry === undefined) notes.set(response, (entry = {}));
  return entry;
}

/** A forwarded turn: its model and the result the line waits for. */
export function noteTurn(response: ServerResponse, model: string | undefined, result: Promise<TurnResult>): void {
  Object.assign(notesOf(response), { model, turn: result });
}

/** A request refused before any turn (bad body, foreign Host, no token…): its error code. */
export function noteRefusal(response: ServerResponse, code: string): void {
  notesOf(response).outcome = code;
}

/** A request forwarded as it came, outside any turn (R8.8): one physical request, no recovery. */
export function notePassThrough(response: ServerResponse): void {
  Object.assign(notesOf(response), { outcome: 'PASS_THROUGH', physicalRequests: 1 });
}

/** The route part of the URL only: a query string may hold a key (`?key=`), so it is never logged. */
function routeOf(request: IncomingMessage): string {
  const url = request.url ?? '/';
  const queryAt = url.indexOf('?');
  return queryAt === -1 ? url : url.slice(0, queryAt);
}

function turnOutcome(result: TurnResult): string {
  return result.outcome === 'ok' ? 'OK' : (result.error?.code ?? 'ERROR');
}

/** R8.11 warnings: every failed physical request, by code only (upstream messages may echo content). */
function warnUpstreamFailures(logger: Logger, route: string, result: TurnResult): void {
  for (const segment of result.segments) {
    if (segment.outcome === 'ok' || segment.outcome === 'aborted') continue;
    logger.warn({ route, segment: segment.segmentIndex + 1, outcome: segment.outcome, code: segment.errorCode }, 'upstream request failed');
  }
  const error = result.error;
  if (error !== undefined && result.segments.length === 0) {
    logger.warn({ route, code: error.code, kind: error.kind, status: error.status }, 'upstream request failed');
  }
}

/**
 * Exactly one access-log line per client request (R8.11), written when the
 * response has closed (finished or the client left) and, for a turn, once
 * its result is known, so the line carries the physical requests and
 * whether a recovery succeeded.
 */
export function startAccessLog(logger: Logger, request: IncomingMessage, response: ServerResponse, now: () => number): void {
  // A silent logger (embedded, tests) costs no listener on the first-byte path (decision 0204).
  if (!logger.isLevelEnabled('warn')) return;
  const startedAt = now();
  response.once('close', () => {
    const durationMs = Math.round(now() - startedAt);
    const entry = notes.get(response) ?? {};
    const write = (result: TurnResult | undefined): void => {
      const route = routeOf(request);
      if (result !== undefined) warnUpstreamFailures(logger, route, result);
      logger.info(
        {
          method: request.method,
          route,
          model: entry.model,
          status: response.statusCode,
          physicalRequests: result?.segments.length ?? entry.physicalRequests ?? 0,
          recovered: result?.recovery?.recovered === true,
          outcome: result === undefined ? (entry.outcome ?? (response.statusCode < 400 ? 'OK' : 'ERROR')) : turnOutcome(result),
          completed: response.writableFinished,
          durationMs,
        },
        'request',
      );
    };
    if (entry.turn === undefined) write(undefined);
    else void entry.turn.then(write, () => write(undefined));
  });
}
