import type { ServerResponse } from 'node:http';
import type { Protocol, RetryEvent, TurnResult } from '@turnguard/core';
import type { Logger } from 'pino';
import { isModelName, UNRECOGNIZED } from '../metrics/bounded-labels.js';
import type { GatewayMetrics } from '../metrics/gateway-metrics.js';
import { accessLogRuns, noteTurn, routeOf } from './access-log.js';
import { requestIdOf, upstreamHostOf } from './request-id.js';

/** What the forwarding code tells about one logical turn while it runs. */
export interface TurnWatch {
  /** runTurn's `retry.onRetry`: an attempt failed and will be retried, before the wait (R1.5). */
  onRetry(event: RetryEvent): void;
  /** The first response byte went out, `seconds` after the request arrived. */
  onFirstByte(seconds: number): void;
  /** The turn's result: the access line waits for it; failures not logged yet are logged when it settles and the response has closed. */
  settle(result: Promise<TurnResult>): void;
}

export type WatchTurn = (protocol: Protocol, response: ServerResponse, model: string | undefined) => TurnWatch;

/** An upstream's own request id, for a support ticket; only an id-shaped one is logged. */
const UPSTREAM_REQUEST_ID_PATTERN = /^[\w.:-]{1,128}$/;

/**
 * One watcher per forwarded turn: counts retries and time to first byte into
 * the metrics and logs each upstream failure with its request id, attempt,
 * wait, upstream host and error code (R12.3). A retried failure is logged
 * when the retry is decided, not when the turn ends; failures that were not
 * retried (the last attempt, a recovery segment) when the turn settles. Only
 * codes, numbers and hosts are logged: an upstream's message may echo the
 * prompt or a key (R4.10, R8.5).
 */
export function createTurnWatcher(logger: Logger, metrics: GatewayMetrics, upstreams: Record<Protocol, string>): WatchTurn {
  const hosts = { chat: upstreamHostOf(upstreams.chat), messages: upstreamHostOf(upstreams.messages), responses: upstreamHostOf(upstreams.responses) };
  return (protocol, response, requestModel) => {
    const upstream = hosts[protocol];
    // The model as the client named it, when it is a model name: the field is the client's free text.
    const model = requestModel === undefined || isModelName(requestModel) ? requestModel : UNRECOGNIZED;
    // The access log (and the failures it writes when the turn settles) runs at `warn` and above.
    const logsFailures = accessLogRuns(logger);
    // Attempts already logged when their retry was decided, by runTurn's attempt id.
    const logged = new Set<string>();
    return {
      onRetry(event) {
        metrics.recordRetry(protocol, requestModel, event.code);
        if (!logsFailures) return;
        logged.add(event.previousAttemptId);
        logger.warn(
          { requestId: requestIdOf(response), route: routeOf(response.req), protocol, model, upstream, segment: 1, attempt: event.retryNumber, attemptId: event.previousAttemptId, code: event.code, status: event.status, retryInMs: Math.round(event.delayMs), retryReason: event.reason },
          'upstream request failed; retrying',
        );
      },
      onFirstByte(seconds) {
        metrics.recordTimeToFirstByte(protocol, requestModel, seconds);
      },
      settle(result) {
        // Nothing reads the notes when the access log is off (a silent, embedded gateway).
        if (!logsFailures) return;
        const afterTurn = (turn: TurnResult): void => logFailuresAtEnd(logger, { requestId: requestIdOf(response), route: routeOf(response.req), protocol, model, upstream }, turn, logged);
        noteTurn(response, model, result, upstream, afterTurn);
      },
    };
  };
}

/**
 * The failed physical requests nobody retried, logged when the turn settles;
 * the one that ended the turn carries the upstream's status and request id.
 */
function logFailuresAtEnd(logger: Logger, fields: Record<string, unknown>, turn: TurnResult, logged: ReadonlySet<string>): void {
  const error = turn.error;
  const upstreamRequestId = error?.requestId !== undefined && UPSTREAM_REQUEST_ID_PATTERN.test(error.requestId) ? error.requestId : undefined;
  const last = turn.segments.at(-1);
  let attempt = 0;
  for (const segment of turn.segments) {
    if (segment.segmentIndex === 0) attempt += 1;
    if (segment.outcome === 'ok' || segment.outcome === 'aborted' || logged.has(segment.requestId)) continue;
    const ending = segment === last && error !== undefined ? { status: error.status, upstreamRequestId } : {};
    logger.warn({ ...fields, segment: segment.segmentIndex + 1, attempt: segment.segmentIndex === 0 ? attempt : 1, attemptId: segment.requestId, code: segment.errorCode, outcome: segment.outcome, ...ending }, 'upstream request failed');
  }
  if (error !== undefined && turn.segments.length === 0) {
    logger.warn({ ...fields, code: error.code, kind: error.kind, status: error.status, upstreamRequestId }, 'upstream request failed');
  }
}
