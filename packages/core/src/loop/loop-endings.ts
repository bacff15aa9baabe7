import { toAssistantErrorMessage } from '../errors/to-assistant-error-message.js';
import type { TurnError } from '../errors/turn-error.js';
import type { Message } from '../types/message.js';
import type { TurnEvent } from '../types/turn-event.js';
import { isEmptyAssistantMessage, type AssistantMessageAssembler } from './assemble-assistant-message.js';
import type { LoopContext } from './loop-context.js';
import {
  createInterruptionMessage,
  createSyntheticToolResult,
  createToolMessage,
  CUT_TOOL_RESULT,
  INTERRUPTED_TOOL_RESULT,
} from './loop-messages.js';
import type { AgentLoopEvent, AgentLoopResult, LoopTerminal, TerminalReason } from './loop-types.js';

type LoopEvents = Generator<AgentLoopEvent, void>;

/** Appends messages to the transcript, each announced to the host once. */
export function* appendMessages<Native extends object>(
  context: LoopContext<Native>,
  transcript: Message[],
  ...messages: Message[]
): LoopEvents {
  for (const message of messages) {
    transcript.push(message);
    yield { type: 'message', messageId: context.createId(), message };
  }
}

/**
 * Appends what a call produced before it stopped, and a result for each of
 * its tool calls (`resultText`), so the transcript never holds an unpaired
 * tool use (R3.7). An empty partial message is dropped (R3.5).
 */
export function* appendPartialAssistant<Native extends object>(
  context: LoopContext<Native>,
  transcript: Message[],
  assembler: AssistantMessageAssembler | undefined,
  resultText: string,
): LoopEvents {
  if (assembler === undefined) return;
  const partial = assembler.build();
  if (isEmptyAssistantMessage(partial)) return;
  yield* appendMessages(context, transcript, partial);
  const results = assembler.toolCalls.map((call) => createSyntheticToolResult(call, resultText));
  if (results.length === 0) return;
  for (const result of results) yield { type: 'tool-result', result };
  yield* appendMessages(context, transcript, createToolMessage(results));
}

/** The one terminal event and the result (R3.11). */
export function* endLoop<Native extends object>(
  context: LoopContext<Native>,
  transcript: Message[],
  terminal: LoopTerminal,
): Generator<AgentLoopEvent, AgentLoopResult> {
  yield { type: 'terminal', terminal };
  return {
    terminal,
    messages: transcript,
    transitions: [...context.transitions],
    turnCount: context.state.turnCount,
    model: context.model,
  };
}

/** R3.10: `interrupt` means the host already queued what comes next, so no interruption message. */
export function shouldAddInterruptionMessage(signal: AbortSignal): boolean {
  return signal.reason !== 'interrupt';
}

/** R3.10: abort while sampling (or before a request): interrupted results, interruption message, `aborted_streaming`. */
export function* endAbortedStreaming<Native extends object>(
  context: LoopContext<Native>,
  transcript: Message[],
  assembler: AssistantMessageAssembler | undefined,
  error: TurnError,
): Generator<AgentLoopEvent, AgentLoopResult> {
  yield* appendPartialAssistant(context, transcript, assembler, INTERRUPTED_TOOL_RESULT);
  if (shouldAddInterruptionMessage(context.signal)) {
    yield* appendMessages(context, transcript, createInterruptionMessage(false));
  }
  return yield* endLoop(context, transcript, { reason: 'aborted_streaming', error, finishReason: undefined });
}

/**
 * An API error ends the loop: a withheld error is shown now, once (R3.2);
 * the error lives on as a pseudo assistant message (R2.2); stop hooks are
 * not run (R3.11).
 */
export function* endWithApiError<Native extends object>(
  context: LoopContext<Native>,
  transcript: Message[],
  ending: {
    reason: TerminalReason;
    error: TurnError;
    assembler?: AssistantMessageAssembler | undefined;
    withheldErrorEvent?: Extract<TurnEvent, { type: 'error' }> | undefined;
  },
): Generator<AgentLoopEvent, AgentLoopResult> {
  if (ending.withheldErrorEvent !== undefined) yield ending.withheldErrorEvent;
  yield* appendPartialAssistant(context, transcript, ending.assembler, CUT_TOOL_RESULT);
  yield* appendMessages(context, transcript, toAssistantErrorMessage(ending.error));
  return yield* endLoop(context, transcript, { reason: ending.reason, error: ending.error, finishReason: undefined });
}

/** R3.11: which terminal an unrecoverable sampling error maps to. */
export function pickErrorTerminal(error: TurnError): TerminalReason {
  switch (error.kind) {
    case 'stream_cut':
      return 'stream_cut';
    case 'timeout':
      return 'deadline';
    case 'prompt_too_long':
      return 'prompt_too_long';
    case 'media_too_large':
      return 'image_error';
    case 'max_output_tokens':
      return 'max_output_tokens';
    case 'aborted':
      return 'aborted_streaming';
    default:
      return 'model_error';
  }
}
