import { TurnError } from '../errors/turn-error.js';
import { FallbackSignal } from '../retry/fallback-signal.js';
import type { RetryOptions } from '../retry/with-retry.js';
import type { TurnResult } from '../turn/turn-result.js';
import type { TurnEvent } from '../types/turn-event.js';
import { AssistantMessageAssembler } from './assemble-assistant-message.js';
import type { LoopContext } from './loop-context.js';
import type { AgentLoopEvent, AgentLoopState } from './loop-types.js';
import { normalizeOutgoingMessages } from './normalize-outgoing-messages.js';
import { minDefined } from '../internal/min-defined.js';

export type SampleOutcome =
  | {
      kind: 'sampled';
      messageId: string;
      assembler: AssistantMessageAssembler;
      result: TurnResult;
      /** R3.2: an error event kept from the host until its recovery fails. */
      withheldErrorEvent: Extract<TurnEvent, { type: 'error' }> | undefined;
    }
  /** The request could not even be built or started (bad input): a typed error, never a crash. */
  | { kind: 'not-sent'; error: TurnError };

/** The fallback model the retry layer may signal for (R1.9), until one switch happened (R3.9). */
export function pickFallbackModel<Native extends object>(context: LoopContext<Native>): string | undefined {
  if (context.fallbackUsed) return undefined;
  const fallback = context.retry.fallbackModel ?? context.hooks.fallbackModel;
  return fallback === context.model ? undefined : fallback;
}

/**
 * R3.2: errors with a recovery path are not shown while it is tried:
 * prompt-too-long and media-too-large (R3.6) and the overload fallback
 * signal (R3.9). (The output limit is a finish reason, not an error event.)
 */
export function isWithheldError<Native extends object>(context: LoopContext<Native>, error: TurnError): boolean {
  if (error.kind === 'prompt_too_long' || error.kind === 'media_too_large') return true;
  return FallbackSignal.isInstance(error) && pickFallbackModel(context) !== undefined;
}

function toTurnError(thrown: unknown): TurnError {
  if (TurnError.isInstance(thrown)) return thrown;
  return new TurnError({
    kind: 'invalid_request',
    code: 'INVALID_AGENT_LOOP_REQUEST',
    retryable: false,
    message: 'The request for the next model call could not be built.',
    cause: thrown,
  });
}

/**
 * One model call: normalise and pair the messages (R3.7), build the native
 * request with the current model and cap, sample, and forward every event
 * except a withheld error. The assistant message is assembled from the same
 * events the host saw.
 */
export async function* sampleModel<Native extends object>(
  context: LoopContext<Native>,
  state: AgentLoopState,
): AsyncGenerator<AgentLoopEvent, SampleOutcome> {
  const { adapter } = context;
  const maxOutputTokens = state.maxOutputTokensOverride ?? context.settings.maxOutputTokens;
  const retry: RetryOptions = {
    ...context.retry,
    fallbackModel: pickFallbackModel(context),
    refreshCredentials: context.retry.refreshCredentials ?? context.hooks.refreshCredentials,
    deadlineAt: minDefined(context.retry.deadlineAt, context.deadlineAt),
  };
  let run;
  try {
    const request = adapter.buildRequest(
      { messages: normalizeOutgoingMessages(state.messages) },
      { ...context.settings, model: context.model, ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }) },
    );
    // R1.10: a 400 dump describes the request this call actually sent, not the host's first one.
    if (retry.debugDump !== undefined) retry.debugDump = { ...retry.debugDump, describeRequest: () => request };
    run = context.sampleTurn({ request, signal: context.signal, retry });
  } catch (thrown) {
    return { kind: 'not-sent', error: toTurnError(thrown) };
  }

  const messageId = context.createId();
  yield { type: 'sample-start', messageId, model: context.model, maxOutputTokens, turnCount: state.turnCount };
  // Responses sends reasoning back by item id, which is the block id its decoder gives (R3.5).
  const assembler = new AssistantMessageAssembler(adapter.protocol === 'responses');
  let withheldErrorEvent: Extract<TurnEvent, { type: 'error' }> | undefined;
  for await (const event of run) {
    assembler.add(event);
    if (event.type === 'error' && isWithheldError(context, event.error)) {
      withheldErrorEvent = event;
      continue;
    }
    yield event;
  }
  const result = await run.result;
  return { kind: 'sampled', messageId, assembler, result, withheldErrorEvent };
}
