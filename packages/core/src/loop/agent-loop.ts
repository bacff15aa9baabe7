import { createAbortedError } from '../errors/create-aborted-error.js';
import { TurnError } from '../errors/turn-error.js';
import { FallbackSignal } from '../retry/fallback-signal.js';
import type { AssistantMessage, Message } from '../types/message.js';
import type { FinishReason } from '../types/finish-reason.js';
import type { ToolCallPart } from '../types/tool-call-part.js';
import type { ToolResultPart } from '../types/tool-result-part.js';
import {
  appendMessages,
  endAbortedStreaming,
  endLoop,
  endWithApiError,
  pickErrorTerminal,
  shouldAddInterruptionMessage,
} from './loop-endings.js';
import type { LoopContext } from './loop-context.js';
import {
  createContinuationMessage,
  createInterruptionMessage,
  createRepeatedTruncationError,
  createSyntheticToolResult,
  createToolMessage,
  describeModelFallback,
  FALLBACK_TOOL_RESULT,
  MAX_OUTPUT_TOKENS_RECOVERY_LIMIT,
} from './loop-messages.js';
import type { AgentLoopEvent, AgentLoopResult, AgentLoopState, Transition } from './loop-types.js';
import { recoverFromOverflow } from './recover-from-overflow.js';
import { runToolCalls } from './run-tool-calls.js';
import { pickFallbackModel, sampleModel, type SampleOutcome } from './sample-model.js';
import { isEmptyAssistantMessage } from './assemble-assistant-message.js';
import { stripModelBoundReasoning } from './strip-messages.js';

type LoopGenerator = AsyncGenerator<AgentLoopEvent, AgentLoopResult>;

export function createInitialState(messages: readonly Message[]): AgentLoopState {
  return {
    messages: [...messages],
    maxOutputTokensRecoveryCount: 0,
    hasAttemptedReactiveCompact: false,
    hasAttemptedCollapseDrain: false,
    maxOutputTokensOverride: undefined,
    turnCount: 1,
    transition: undefined,
  };
}

/** R3.1: records why the loop goes round, for the result and the host. */
function* enterState<Native extends object>(context: LoopContext<Native>, next: AgentLoopState): Generator<AgentLoopEvent, AgentLoopState> {
  const transition = next.transition as Transition;
  context.transitions.push(transition);
  context.state = next;
  yield { type: 'transition', transition };
  return next;
}

/** The state for the next model call after tool results (or a stop hook): per-turn budgets start afresh. */
function nextTurnState(state: AgentLoopState, messages: Message[], transition: Transition): AgentLoopState {
  return {
    messages,
    // R3.4: a response with a tool call resets the consecutive-continuation count.
    maxOutputTokensRecoveryCount: 0,
    hasAttemptedReactiveCompact: false,
    hasAttemptedCollapseDrain: false,
    maxOutputTokensOverride: undefined,
    turnCount: state.turnCount + 1,
    transition,
  };
}

function exceedsMaxTurns<Native extends object>(context: LoopContext<Native>, nextTurnCount: number): boolean {
  return context.maxTurns !== undefined && nextTurnCount > context.maxTurns;
}

function maxTurnsError(maxTurns: number): TurnError {
  return new TurnError({
    kind: 'invalid_request',
    code: 'MAX_TURNS',
    retryable: false,
    message: `The agent loop reached its limit of ${maxTurns} model calls.`,
    details: { maxTurns },
  });
}

/**
 * R3.3: escalate once, only while the turn still uses the default cap — the
 * adapter's, because the host set none. A cap the host chose is the host's
 * decision (the model may not allow more: a 64000 request to an 8192-token
 * model is a 400), so a truncation under it goes straight to continuation.
 */
function canEscalate<Native extends object>(context: LoopContext<Native>, state: AgentLoopState): boolean {
  if (context.escalatedMaxOutputTokens === false || state.maxOutputTokensOverride !== undefined) return false;
  return context.settings.maxOutputTokens === undefined;
}

/** Where one model call leaves the loop: it goes round with `next`, or it ends with `result`. */
type LoopStep = { next: AgentLoopState } | { result: AgentLoopResult };
type StepGenerator = AsyncGenerator<AgentLoopEvent, LoopStep>;
type Sampled = Extract<SampleOutcome, { kind: 'sampled' }>;

/**
 * The agent loop (R3): one `for (;;)` over an explicit state where every
 * recovery is one new state and another round (decision 0090). Each round
 * makes one model call; what its outcome means is one step function below.
 */
export async function* agentLoop<Native extends object>(context: LoopContext<Native>): LoopGenerator {
  let state = context.state;
  for (;;) {
    const stopped = yield* endBeforeModelCall(context, state);
    if (stopped !== undefined) return stopped;
    const sample = yield* sampleModel(context, state);
    if (sample.kind === 'not-sent') {
      return yield* endWithApiError(context, [...state.messages], { reason: 'model_error', error: sample.error });
    }
    const step = sample.result.outcome === 'error' ? yield* afterFailedCall(context, state, sample) : yield* afterAnswer(context, state, sample);
    if ('result' in step) return step.result;
    state = step.next;
  }
}

/** R3.10: no request is sent after an abort, nor after the loop's deadline. */
function* endBeforeModelCall<Native extends object>(context: LoopContext<Native>, state: AgentLoopState): Generator<AgentLoopEvent, AgentLoopResult | undefined> {
  if (context.signal.aborted) {
    return yield* endAbortedStreaming(context, [...state.messages], undefined, createAbortedError(context.signal.reason));
  }
  if (context.deadlineAt !== undefined && context.now() >= context.deadlineAt) {
    const error = new TurnError({ kind: 'timeout', message: 'The agent loop deadline passed before the next model call.' });
    return yield* endLoop(context, [...state.messages], { reason: 'deadline', error, finishReason: undefined });
  }
  return undefined;
}

/** The model call failed: a fallback model (R3.9), an overflow recovery (R3.6, R3.7), or the error ends the loop. */
async function* afterFailedCall<Native extends object>(context: LoopContext<Native>, state: AgentLoopState, sample: Sampled): StepGenerator {
  const { assembler, result, messageId, withheldErrorEvent } = sample;
  const error = result.error ?? new TurnError({ kind: 'server', message: 'The model call failed.' });
  if (error.kind === 'aborted' || context.signal.aborted) {
    return { result: yield* endAbortedStreaming(context, [...state.messages], assembler, error) };
  }
  const fallbackModel = pickFallbackModel(context);
  if (FallbackSignal.isInstance(error) && fallbackModel !== undefined) {
    // R3.9 / R3.8: close the abandoned attempt's tool uses, retract what it showed, clear it.
    for (const call of assembler.toolCalls) yield { type: 'tool-result', result: createSyntheticToolResult(call, FALLBACK_TOOL_RESULT) };
    if (assembler.contentEmitted) yield { type: 'tombstone', messageId };
    const originalModel = context.model;
    context.model = fallbackModel;
    context.fallbackUsed = true;
    yield { type: 'warning', message: describeModelFallback(fallbackModel, originalModel) };
    return {
      next: yield* enterState(context, {
        ...state,
        messages: stripModelBoundReasoning(state.messages),
        transition: { reason: 'model_fallback', turnCount: state.turnCount },
      }),
    };
  }
  if (error.kind === 'prompt_too_long' || error.kind === 'media_too_large') {
    const recovered = await recoverFromOverflow(context, state, error.kind);
    if (recovered !== undefined) return { next: yield* enterState(context, recovered) };
  }
  return { result: yield* endWithApiError(context, [...state.messages], { reason: pickErrorTerminal(error), error, assembler, withheldErrorEvent }) };
}

/** The model answered: a truncation without tools (R3.3, R3.4), tool calls (R3.4, R3.10), or a completed answer (R3.11). */
async function* afterAnswer<Native extends object>(context: LoopContext<Native>, state: AgentLoopState, sample: Sampled): StepGenerator {
  const { assembler, result, messageId } = sample;
  const finishReason = result.finishReason;
  const assistant = assembler.build();
  const toolCalls = assembler.toolCalls;
  const truncated = finishReason?.unified === 'length';
  if (truncated && toolCalls.length === 0) return yield* afterTruncation(context, state, { assistant, messageId, contentEmitted: assembler.contentEmitted });

  const messages = [...state.messages];
  if (!isEmptyAssistantMessage(assistant)) yield* appendMessages(context, messages, assistant);
  if (toolCalls.length > 0) return yield* afterToolCalls(context, state, { messages, toolCalls, truncated, finishReason });

  // Completed normally: stop hooks run here and only here (never after an API error, R3.11).
  context.state = { ...state, messages };
  const continueWith = await runStopHook(context, messages);
  if (continueWith === undefined || context.signal.aborted) return { result: yield* endLoop(context, messages, { reason: 'completed', error: undefined, finishReason }) };
  const nextTurnCount = state.turnCount + 1;
  if (exceedsMaxTurns(context, nextTurnCount)) {
    return { result: yield* endLoop(context, messages, { reason: 'max_turns', error: maxTurnsError(context.maxTurns!), finishReason }) };
  }
  yield* appendMessages(context, messages, ...continueWith);
  return { next: yield* enterState(context, nextTurnState(state, messages, { reason: 'stop_hook_blocking', turnCount: nextTurnCount })) };
}

/** Cut by the output cap with no tool call: escalate once (R3.3), continue up to the limit, then end (R3.4). */
async function* afterTruncation<Native extends object>(
  context: LoopContext<Native>,
  state: AgentLoopState,
  answer: { assistant: AssistantMessage; messageId: string; contentEmitted: boolean },
): StepGenerator {
  if (canEscalate(context, state)) {
    // R3.3 / R3.8: the cut attempt is replayed with a larger cap, so what it showed is retracted.
    if (answer.contentEmitted) yield { type: 'tombstone', messageId: answer.messageId };
    return {
      next: yield* enterState(context, {
        ...state,
        maxOutputTokensOverride: context.escalatedMaxOutputTokens as number,
        transition: { reason: 'max_output_tokens_escalate', turnCount: state.turnCount },
      }),
    };
  }
  const messages = [...state.messages];
  // R3.5: a reasoning-only turn is kept so the continuation picks up the thought.
  if (!isEmptyAssistantMessage(answer.assistant)) yield* appendMessages(context, messages, answer.assistant);
  if (state.maxOutputTokensRecoveryCount < MAX_OUTPUT_TOKENS_RECOVERY_LIMIT) {
    const attempt = state.maxOutputTokensRecoveryCount + 1;
    yield* appendMessages(context, messages, createContinuationMessage());
    return {
      next: yield* enterState(context, {
        ...state,
        messages,
        maxOutputTokensRecoveryCount: attempt,
        transition: { reason: 'max_output_tokens_recovery', turnCount: state.turnCount, attempt },
      }),
    };
  }
  // R3.4: the 4th consecutive truncation adds no message and ends with a visible error.
  context.state = { ...state, messages };
  return {
    result: yield* endWithApiError(context, messages, { reason: 'max_output_tokens', error: createRepeatedTruncationError(MAX_OUTPUT_TOKENS_RECOVERY_LIMIT) }),
  };
}

/** The answer asked for tools: they run, their results go in, and the loop goes round unless it must end (R3.4, R3.10). */
async function* afterToolCalls<Native extends object>(
  context: LoopContext<Native>,
  state: AgentLoopState,
  answer: { messages: Message[]; toolCalls: ToolCallPart[]; truncated: boolean; finishReason: FinishReason | undefined },
): StepGenerator {
  const { messages, truncated, finishReason } = answer;
  context.state = { ...state, messages };
  const { results, aborted } = yield* runTools(context, answer.toolCalls, truncated);
  yield* appendMessages(context, messages, createToolMessage(results));
  if (aborted) {
    // R3.10: abort during tools.
    if (shouldAddInterruptionMessage(context.signal)) yield* appendMessages(context, messages, createInterruptionMessage(true));
    return { result: yield* endLoop(context, messages, { reason: 'aborted_tools', error: createAbortedError(context.signal.reason), finishReason }) };
  }
  const nextTurnCount = state.turnCount + 1;
  if (exceedsMaxTurns(context, nextTurnCount)) {
    return { result: yield* endLoop(context, messages, { reason: 'max_turns', error: maxTurnsError(context.maxTurns!), finishReason }) };
  }
  // R3.4: truncated with tool calls: tools ran; the meta message still goes in; the count is not used up.
  if (truncated) yield* appendMessages(context, messages, createContinuationMessage());
  const reason = truncated ? 'max_output_tokens_tool_continue' : 'next_turn';
  return { next: yield* enterState(context, nextTurnState(state, messages, { reason, turnCount: nextTurnCount })) };
}

async function* runTools<Native extends object>(
  context: LoopContext<Native>,
  toolCalls: ToolCallPart[],
  responseTruncated: boolean,
): AsyncGenerator<AgentLoopEvent, { results: ToolResultPart[]; aborted: boolean }> {
  const results: ToolResultPart[] = [];
  const run = runToolCalls({
    toolCalls,
    handlers: context.handlers,
    signal: context.signal,
    responseTruncated,
    onToolError: context.onToolError,
  });
  for (;;) {
    const step = await run.next();
    if (step.done === true) return { results, aborted: step.value.aborted };
    results.push(step.value);
    yield { type: 'tool-result', result: step.value };
  }
}

/** A stop hook that throws is ignored: the loop never crashes on a hook. */
async function runStopHook<Native extends object>(context: LoopContext<Native>, messages: Message[]): Promise<Message[] | undefined> {
  const onStop = context.hooks.onStop;
  if (onStop === undefined) return undefined;
  try {
    const verdict = await onStop({ messages, signal: context.signal });
    if (!verdict) return undefined;
    const { continueWith } = verdict;
    return Array.isArray(continueWith) && continueWith.length > 0 ? continueWith : undefined;
  } catch {
    return undefined;
  }
}
