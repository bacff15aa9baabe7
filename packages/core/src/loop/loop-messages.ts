import { TurnError } from '../errors/turn-error.js';
import type { ToolMessage, UserMessage } from '../types/message.js';
import type { ToolCallPart } from '../types/tool-call-part.js';
import type { ToolResultPart } from '../types/tool-result-part.js';

/** R3.4: the exact continuation text. */
export const MAX_OUTPUT_TOKENS_RECOVERY_MESSAGE =
  'Output token limit hit. Resume directly — no apology, no recap of what you were doing. ' +
  'Pick up mid-thought if that is where the cut happened. Break remaining work into smaller pieces.';

/** R3.4: consecutive continuations allowed (Claude Code MAX_OUTPUT_TOKENS_RECOVERY_LIMIT). */
export const MAX_OUTPUT_TOKENS_RECOVERY_LIMIT = 3;

/** R3.3: Claude Code ESCALATED_MAX_TOKENS. */
export const DEFAULT_ESCALATED_MAX_OUTPUT_TOKENS = 64_000;

/** R3.10: Claude Code's createUserInterruptionMessage texts (toolUse false / true). */
export const INTERRUPTED_MESSAGE = '[Request interrupted by user]';
export const INTERRUPTED_FOR_TOOL_USE_MESSAGE = '[Request interrupted by user for tool use]';

/** R3.10 / R3.7: the tool_result given to a tool use the user interrupted. */
export const INTERRUPTED_TOOL_RESULT = 'Interrupted by user';
/** R3.9: the tool_result given to a tool use of an attempt abandoned for the fallback model. */
export const FALLBACK_TOOL_RESULT = 'Model fallback triggered';
/** R3.7: the tool_result given to a tool use whose result went missing. */
export const MISSING_TOOL_RESULT = 'Tool result missing: the tool call did not complete.';
/** R3.7: the tool_result given to a tool use cut off with its response. */
export const CUT_TOOL_RESULT = 'The response was cut off before this tool call could run.';

/** R3.6: what replaces an image stripped for a media-too-large error. */
export const STRIPPED_IMAGE_TEXT = '[image removed: it was too large for the provider]';

/** R3.9: the visible warning after a model switch (Claude Code query.ts:898). */
export function describeModelFallback(fallbackModel: string, originalModel: string): string {
  return `Switched to ${fallbackModel} due to high demand for ${originalModel}`;
}

/** R3.4: the hidden continuation message, `isMeta: true`. */
export function createContinuationMessage(): UserMessage {
  return { role: 'user', isMeta: true, content: [{ type: 'text', text: MAX_OUTPUT_TOKENS_RECOVERY_MESSAGE }] };
}

export function createInterruptionMessage(duringToolUse: boolean): UserMessage {
  const text = duringToolUse ? INTERRUPTED_FOR_TOOL_USE_MESSAGE : INTERRUPTED_MESSAGE;
  return { role: 'user', content: [{ type: 'text', text }] };
}

/** R3.4: the visible error after the 4th consecutive truncation. */
export function createRepeatedTruncationError(limit: number): TurnError {
  return new TurnError({
    kind: 'max_output_tokens',
    retryable: false,
    message: `The response repeatedly exceeded the output token limit (${limit} continuations did not finish it).`,
    details: { continuations: limit },
  });
}

/** An `isError` tool result standing in for one that never ran (R3.7). */
export function createSyntheticToolResult(toolCall: Pick<ToolCallPart, 'toolCallId' | 'toolName'>, text: string): ToolResultPart {
  return { type: 'tool-result', toolCallId: toolCall.toolCallId, toolName: toolCall.toolName, output: text, isError: true };
}

export function createToolMessage(results: ToolResultPart[]): ToolMessage {
  return { role: 'tool', content: results };
}
