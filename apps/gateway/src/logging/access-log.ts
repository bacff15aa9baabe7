import type { IncomingMessage, ServerResponse } from 'node:http';
import { USAGE_FIELDS, type AggregatedTurnUsage, type KnownUsage, type TurnResult } from '@turnguard/core';
import type { Logger } from 'pino';
import { requestIdOf } from './request-id.js';
import { isModelName, UNRECOGNIZED } from '../metrics/bounded-labels.js';

/** What a request's handler tells the access log; never content or credentials (R8.11, R8.5). */
interface AccessNotes {
  model?: string | undefined;
  turn?: Promise<TurnResult>;
  outcome?: string;
  /** Physical upstream requests made outside a turn (a pass-through route, R8.8). */
  physicalRequests?: number;
  /** The upstream's host (never its path or query, where a key may sit). */
  upstream?: string | undefined;
  /** Called with the turn's result just before its line is written (the failures nobody logged yet). */
  afterTurn?: ((result: TurnResult) => void) | undefined;
}

const notes = new WeakMap<ServerResponse, AccessNotes>();

function notesOf(response: ServerResponse): AccessNotes {
  let entry = notes.get(response);
  if (entry === undefined) notes.set(response, (entry = {}));
  return entry;
}

/**
 * Whether `startAccessLog` watches requests for this logger: the line is
 * `info`, and the failures logged when a turn settles (`afterTurn`) are
 * `warn`. Below that no note is worth keeping.
 */
export function accessLogRuns(logger: Logger): boolean {
  return logger.isLevelEnabled('warn');
}

/**
 * A forwarded turn: its model, its upstream's host and the result the line
 * waits for. The result is read only once the response has closed: reading
 * runTurn's result earlier would drain the events the relay is reading.
 */
export function noteTurn(
  response: ServerResponse,
  model: string | undefined,
  result: Promise<TurnResult>,
  upstream?: string,
  afterTurn?: (result: TurnResult) => void,
): void {
  Object.assign(notesOf(response), { model, turn: result, upstream, afterTurn });
}

/** A request refused before any turn (bad body, foreign Host, no token…): its error code. */
export function noteRefusal(response: ServerResponse, code: string): void {
  notesOf(response).outcome = code;
}

/** A request forwarded as it came, outside any turn (R8.8): one physical request, no recovery. */
export function notePassThrough(response: ServerResponse, upstream?: string): void {
  Object.assign(notesOf(response), { outcome: 'PASS_THROUGH', physicalRequests: 1, upstream });
}

/** The route part of the URL only: a query string may hold a key (`?key=`), so it is never logged. */
export function routeOf(request: IncomingMessage): string {
  const url = request.url ?? '/';
  const queryAt = url.indexOf('?');
  return queryAt === -1 ? url : url.slice(0, queryAt);
}

function turnOutcome(result: TurnResult): string {
  return result.outcome === 'ok' ? 'OK' : (result.error?.code ?? 'ERROR');
}

/** The counts the upstream reported for the whole turn; an unknown count is left out, never 0 (R5.1). */
function knownTokens(usage: AggregatedTurnUsage): KnownUsage {
  const known: KnownUsage = {};
  for (const field of USAGE_FIELDS) {
    const count = usage[field];
    if (count !== undefined) known[field] = count;
  }
  return known;
}

/** The turn's part of the line: physical requests, recovery, outcome and its known tokens (R5.2: `usageComplete`). */
function describeTurn(result: TurnResult): Record<string, unknown> {
  return {
    physicalRequests: result.segments.length,
    recovered: result.recovery?.recovered === true,
    outcome: turnOutcome(result),
    tokens: knownTokens(result.usage),
    usageComplete: result.usage.complete,
    ...describeChain(result),
  };
}

/**
 * R11.7: the fail-over part — the model that answered, fallbacks, a
 * continuation, and each chain entry as `upstream/model:outcome[:code]` —
 * names and codes only; absent when the turn never left its first entry.
 */
function describeChain(result: TurnResult): Record<string, unknown> {
  const chain = result.chain;
  if (chain === undefined || (chain.length <= 1 && result.continued !== true)) return {};
  // A model named in the client's x-turnguard-fallbacks header is the client's text: logged only when it looks like a model name.
  const name = (model: string | undefined): string | undefined => (model === undefined || isModelName(model) ? model : UNRECOGNIZED);
  return {
    answeredBy: result.outcome === 'ok' ? name(result.model) : undefined,
    fallbacks: result.fallbacks ?? 0,
    continued: result.continued === true,
    chain: chain.map((entry) => `${entry.upstream}/${name(entry.model)}:${entry.outcome}${entry.errorCode === undefined ? '' : `:${entry.errorCode}`}${entry.skippedBecause === undefined ? '' : `:${entry.skippedBecause}`}`),
  };
}

/**
 * Exactly one access-log line per client request (R8.11), written when the
 * response has closed (finished or the client left) and, for a turn, once
 * its result is known, so the line carries the physical requests, whether a
 * recovery succeeded and the tokens the upstream reported. Every line carries
 * the request's id (R12.3).
 */
export function startAccessLog(logger: Logger, request: IncomingMessage, response: ServerResponse, now: () => number): void {
  // A silent logger (embedded, tests) adds no listener and keeps no notes: nothing would be written.
  if (!accessLogRuns(logger)) return;
  const writesLine = logger.isLevelEnabled('info');
  const startedAt = now();
  response.once('close', () => {
    const durationMs = Math.round(now() - startedAt);
    const entry = notes.get(response) ?? {};
    const write = (result: TurnResult | undefined): void => {
      if (result !== undefined) entry.afterTurn?.(result);
      // At `warn` only the failures above are written: the line itself is not built.
      if (!writesLine) return;
      const turn =
        result === undefined
          ? { physicalRequests: entry.physicalRequests ?? 0, recovered: false, outcome: entry.outcome ?? (response.statusCode < 400 ? 'OK' : 'ERROR') }
          : describeTurn(result);
      logger.info(
        {
          requestId: requestIdOf(response),
          method: request.method,
          route: routeOf(request),
          model: entry.model,
          upstream: entry.upstream,
          status: response.statusCode,
          ...turn,
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
