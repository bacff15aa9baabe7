import { classifyThrownError } from '../errors/classify-thrown-error.js';
import { TurnError } from '../errors/turn-error.js';
import type { SegmentFacts } from '../stream/segment-facts.js';
import type { SegmentAttempt } from './run-attempt.js';

/**
 * What one physical request means for the turn, once aborts and time limits
 * are ruled out by the caller:
 * - `ok`: the protocol's terminal frame arrived;
 * - `cut`: clean EOF without a terminal frame after output reached the host —
 *   the only shape that may trigger a recovery (R4.1);
 * - `failed`: an error, retryable only while nothing reached the host (R1.1, R1.2).
 */
export type SegmentVerdict =
  | { kind: 'ok'; facts: SegmentFacts }
  | { kind: 'cut'; facts: SegmentFacts }
  | { kind: 'failed'; error: TurnError; facts: SegmentFacts | undefined };

/** R1.2: after output reached the consumer a failure is `STREAM_CUT`, never resent blindly. */
export function createStreamCutError(
  message: string,
  cause?: TurnError,
  details: Record<string, unknown> = {},
): TurnError {
  return new TurnError({
    kind: 'stream_cut',
    retryable: false,
    message,
    cause,
    status: cause?.status,
    requestId: cause?.requestId,
    details: cause === undefined ? details : { upstreamCode: cause.code, upstreamKind: cause.kind, ...details },
  });
}

function failAfterOutput(facts: SegmentFacts, upstream: TurnError): SegmentVerdict {
  if (!facts.outputConsumed) return { kind: 'failed', error: upstream, facts };
  return {
    kind: 'failed',
    error: createStreamCutError(`The stream failed after output reached the host (${upstream.code}).`, upstream),
    facts,
  };
}

export function judgeSegmentAttempt(
  attempt: Exclude<SegmentAttempt, { stage: 'aborted-before-response' }>,
): SegmentVerdict {
  switch (attempt.stage) {
    case 'connect-failed':
    case 'read-failed':
      return { kind: 'failed', error: classifyThrownError(attempt.thrown), facts: undefined };
    case 'http-error':
      return { kind: 'failed', error: attempt.error, facts: undefined };
    case 'streamed':
      return judgeStreamedSegment(attempt.facts);
    default: {
      const _exhaustive: never = attempt;
      return _exhaustive;
    }
  }
}

function judgeStreamedSegment(facts: SegmentFacts): SegmentVerdict {
  switch (facts.end) {
    case 'terminal':
      if (facts.finishReason?.unified === 'error') {
        // e.g. Responses `response.failed` without a separate error frame.
        return failAfterOutput(
          facts,
          new TurnError({ kind: 'server', message: 'The upstream reported a failed response.' }),
        );
      }
      return { kind: 'ok', facts };
    case 'eof':
      if (facts.outputConsumed) return { kind: 'cut', facts };
      // R1.1: an EOF with no output at all is a retryable TRANSPORT failure.
      return {
        kind: 'failed',
        error: new TurnError({
          kind: 'transport',
          message: 'The stream ended without output and without a finish frame.',
          details: { emptyStream: true },
        }),
        facts,
      };
    case 'stream-error':
      // An in-stream error frame (Anthropic `event: error` after HTTP 200) is
      // retried per R1 while nothing reached the host; the SDKs never retry it.
      return failAfterOutput(
        facts,
        facts.streamError ?? new TurnError({ kind: 'server', message: 'The upstream sent an error frame.' }),
      );
    case 'transport-error':
      return failAfterOutput(facts, classifyThrownError(facts.transportError));
    case 'aborted':
      throw new Error('judgeSegmentAttempt: aborted segments are mapped by the caller');
    default: {
      const _exhaustive: never = facts.end;
      return _exhaustive;
    }
  }
}
